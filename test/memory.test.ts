// Wasm memory is released: at once by dispose(), and for dropped filters by
// the garbage collector while the program yields to the event loop.
import { describe, expect, it } from "vitest";
import { BloomFilter } from "../bindings/index.js";
import { core } from "../bindings/wasm.js";

const MiB = 1024 * 1024;
const ONE_MB_OF_BITS = 8 * MiB;
const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

describe("wasm memory", () => {
  it("stays bounded while 10,000 dropped filters of 1 MB come and go", async () => {
    const start = core.memory.buffer.byteLength;
    let peak = start;
    for (let i = 0; i < 10_000; i++) {
      const filter = BloomFilter.withSize(ONE_MB_OF_BITS, 7);
      filter.add(`key ${i}`);
      expect(filter.has(`key ${i}`)).toBe(true);
      if (i % 10 === 9) await yieldToEventLoop(); // a long-running process yields between jobs
      peak = Math.max(peak, core.memory.buffer.byteLength);
    }
    // 10,000 MB were allocated in all; without release the 4 GiB wasm memory would run out.
    expect(peak - start).toBeLessThan(1024 * MiB);
  });

  it("dispose() gives the memory back at once, even in a synchronous loop", () => {
    const start = core.memory.buffer.byteLength;
    for (let i = 0; i < 10_000; i++) {
      const filter = BloomFilter.withSize(ONE_MB_OF_BITS, 7);
      filter.add("x");
      filter.dispose();
    }
    expect(core.memory.buffer.byteLength - start).toBeLessThanOrEqual(16 * MiB);
  });

  it("reuses a disposed filter's block for the next one", () => {
    const a = BloomFilter.withSize(ONE_MB_OF_BITS, 3);
    a.add("dirty");
    a.dispose();
    const b = BloomFilter.withSize(ONE_MB_OF_BITS, 3);
    expect(b.fillRatio).toBe(0); // a reused block starts zeroed
    expect(b.has("dirty")).toBe(false);
    b.dispose();
  });
});
