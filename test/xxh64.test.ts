// xxh64 against vectors from the reference C implementation (test/fixtures/generate.sh).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { core, heapU32, heapU8 } from "../bindings/wasm.js";

interface Vector {
  kind: string;
  seed: number;
  hex: string;
  xxh64: string;
}

const vectors: Vector[] = JSON.parse(readFileSync(new URL("./fixtures/hash-vectors.json", import.meta.url), "utf8"));

function wasmXxh64(key: Uint8Array, seed: number): string {
  const ptr = core.alloc(key.length + 8);
  try {
    heapU8().set(key, ptr + 8);
    core.hashXxh64(ptr + 8, key.length, seed >>> 0, 0, ptr);
    const words = heapU32();
    const lo = words[ptr >>> 2];
    const hi = words[(ptr >>> 2) + 1];
    return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
  } finally {
    core.free(ptr);
  }
}

describe("xxh64", () => {
  it("has vectors for the empty key, every length 1…256, text and random bytes", () => {
    expect(vectors.filter((v) => v.kind === "pattern").map((v) => v.hex.length / 2)).toEqual(
      Array.from({ length: 256 }, (_, i) => i + 1),
    );
    expect(vectors.some((v) => v.kind === "empty")).toBe(true);
    expect(vectors.filter((v) => v.kind === "random").length).toBeGreaterThanOrEqual(64);
  });

  it("matches the published value for the empty key", () => {
    expect(wasmXxh64(new Uint8Array(0), 0)).toBe("ef46db3751d8e999");
  });

  it.each(["empty", "pattern", "text", "random"])("matches the reference C code on %s keys", (kind) => {
    for (const vector of vectors.filter((v) => v.kind === kind)) {
      const key = Uint8Array.from(Buffer.from(vector.hex, "hex"));
      expect(wasmXxh64(key, vector.seed), `${kind} key ${vector.hex.slice(0, 32)} seed ${vector.seed}`).toBe(vector.xxh64);
    }
  });
});
