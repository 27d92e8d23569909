// The payload checksum computed piece by piece (records written and read in
// pieces, filters in segments) equals xxh64 of the whole payload, which the
// hash tests pin to the reference implementation's vectors.
import { describe, expect, it } from "vitest";
import { hash } from "../bindings/index.js";
import { PayloadHash } from "../bindings/format.js";
import { Arena } from "../bindings/arena.js";
import { rng } from "./helpers.js";

describe("xxh64 in pieces", () => {
  it("equals xxh64 of the whole, for every length 0…300 cut at random places, in JS bytes and across memories", () => {
    const random = rng(77);
    const arenas = [new Arena(), new Arena()];
    for (let length = 0; length <= 300; length++) {
      const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
      const whole = hash("xxh64", bytes);
      const cuts = [0, ...Array.from({ length: 3 }, () => Math.floor(random() * (length + 1))).sort((a, b) => a - b), length];
      const inJs = new PayloadHash();
      const inMemories = new PayloadHash();
      for (let i = 0; i + 1 < cuts.length; i++) {
        const piece = bytes.subarray(cuts[i], cuts[i + 1]);
        inJs.updateBytes(piece);
        const arena = arenas[i % 2];
        const ptr = arena.alloc(Math.max(1, piece.length));
        arena.u8().set(piece, ptr);
        inMemories.update(arena, ptr, piece.length);
        arena.free(ptr);
      }
      expect(inJs.digest()).toBe(whole);
      expect(inMemories.digest()).toBe(whole);
    }
  });
});
