// The CLI's guard against Node's exit deadlock (nodejs/node#54918): a full
// collection once a command is done. The deadlock itself is too rare to
// provoke in a test (2 hangs in several hundred CLI runs here); this checks
// that the collection really happens on the Node running the suite, which a
// runtime refusing --expose-gc would silently skip.
import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { collectBeforeExit } from "../cli/exit-deadlock.js";

describe("collectBeforeExit", () => {
  it("collects the heap: 20 MB of garbage is gone after it", () => {
    let garbage: { i: number; text: string }[] | null = Array.from({ length: 250_000 }, (_, i) => ({ i, text: `key-${i}-${"x".repeat(40)}` }));
    const before = getHeapStatistics().used_heap_size;
    expect(garbage.length).toBe(250_000);
    garbage = null;
    collectBeforeExit();
    expect(getHeapStatistics().used_heap_size).toBeLessThan(before - 20e6);
  });
});
