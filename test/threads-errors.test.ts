// Shared filters' edges, in one thread: bad options and handles are refused
// with errors that name them, { shared: true } where memory cannot be shared
// says why, each thread's batch area is taken once (whatever number of filter
// objects it opens) and given back when the last is disposed, and neither a handle dropped nor a disposed filter keeps the
// shared memory alive.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  BinaryFuseFilter,
  BloomFilter,
  CountingBloomFilter,
  CuckooFilter,
  MAX_SEGMENT_BITS,
  ScalableBloomFilter,
  SplitBlockBloomFilter,
  deserialize,
  deserializeChunks,
} from "../bindings/index.js";
import { BATCH_STATES_BYTE, BUSY, FREE, MAX_SCRATCH_SLOTS, SharedArena, batchAreaRoom, freeBatchAreas } from "../bindings/shared-arena.js";
import { SHARED_BYTES_KEY_BYTES, SHARED_KEY_BYTES, scratchBytes } from "../bindings/keys.js";
import { MAX_BLOCK_BYTES } from "../bindings/memory.js";

const keys = Uint32Array.from({ length: 1000 }, (_, i) => i * 7);

/** The batch areas' states in a shared memory, through which a test plays other threads taking and giving back areas. */
function batchStates(memory: { buffer: ArrayBufferLike }): Int32Array {
  return new Int32Array(memory.buffer, BATCH_STATES_BYTE, MAX_SCRATCH_SLOTS);
}

describe("shared filters refuse bad input", () => {
  afterEach(() => {
    delete (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  });

  it("options.shared must be a boolean", () => {
    expect(() => BloomFilter.create(1000, 0.01, { shared: "yes" as never })).toThrow(new TypeError('options.shared must be a boolean, got "yes"'));
    expect(() => BloomFilter.withSize(1024, 3, { shared: 1 as never })).toThrow(new TypeError("options.shared must be a boolean, got 1"));
    expect(() => SplitBlockBloomFilter.create(1000, 0.01, { shared: null as never })).toThrow(new TypeError("options.shared must be a boolean, got null"));
    expect(() => SplitBlockBloomFilter.withSize(8, { shared: "no" as never })).toThrow(TypeError);
    expect(() => SplitBlockBloomFilter.withSize(8, { other: true } as never)).toThrow(/options/);
  });

  it("{ shared: true } for a filter type that cannot be shared says which can, not only that the option is unknown", () => {
    const hint = "(only a BloomFilter or a SplitBlockBloomFilter can be shared between threads)";
    const makers = [
      () => CountingBloomFilter.create(100, 0.01, { shared: true } as never),
      () => CuckooFilter.create(100, 0.01, { shared: true } as never),
      () => ScalableBloomFilter.create(100, 0.01, { shared: true } as never),
      () => BinaryFuseFilter.build(["a"], { shared: true } as never),
    ];
    for (const make of makers) expect(make).toThrow(new RegExp(`^unknown option "shared" in options ${hint.replace(/[()]/g, "\\$&")}; known options: `));
  });

  it("share() of a private filter says it is private", () => {
    using filter = BloomFilter.create(1000, 0.01);
    expect(filter.shared).toBe(false);
    expect(() => filter.share()).toThrow(new TypeError("share() needs a BloomFilter created with { shared: true }; this one lives in memory private to its thread"));
    using block = SplitBlockBloomFilter.create(1000, 0.01);
    expect(() => block.share()).toThrow(TypeError);
    expect(() => block.share()).toThrow("share() needs a SplitBlockBloomFilter created with { shared: true }");
  });

  it("deserialize(…, { shared: true }) of a type that cannot be shared names the type, and loads nothing", async () => {
    const records = [
      CountingBloomFilter.create(100, 0.01).serialize(),
      CuckooFilter.create(100, 0.01).serialize(),
      ScalableBloomFilter.create(100, 0.01).serialize(),
      BinaryFuseFilter.build(["a", "b"]).serialize(),
    ];
    for (const bytes of records) {
      const type = deserialize(bytes).constructor.name;
      const refusal = new TypeError(`options.shared is true, but the bytes hold a ${type}; only a BloomFilter or a SplitBlockBloomFilter can live in shared memory`);
      expect(() => deserialize(bytes, { shared: true })).toThrow(refusal);
      await expect(deserializeChunks([bytes], { shared: true })).rejects.toThrow(refusal);
    }
  });

  it("X.deserialize and X.fromBase64 of a type that cannot be shared refuse { shared: true }, which they loaded as a private filter without a word", () => {
    const types = [
      [CountingBloomFilter, CountingBloomFilter.create(100, 0.01)],
      [CuckooFilter, CuckooFilter.create(100, 0.01)],
      [ScalableBloomFilter, ScalableBloomFilter.create(100, 0.01)],
      [BinaryFuseFilter, BinaryFuseFilter.build(["a", "b"])],
    ] as const;
    for (const [Type, filter] of types) {
      const bytes = filter.serialize();
      const load = Type.deserialize as (bytes: Uint8Array, options?: object) => unknown;
      const fromText = Type.fromBase64 as (text: string, options?: object) => unknown;
      const refusal = (method: string) => new TypeError(`${Type.name}.${method} takes no options (only a BloomFilter or a SplitBlockBloomFilter can live in shared memory), got an object`);
      expect(() => load(bytes, { shared: true })).toThrow(refusal("deserialize"));
      expect(() => fromText(filter.toBase64(), { shared: true })).toThrow(refusal("fromBase64"));
      // As a callback (records.map(X.deserialize)), the index it is given is no options: it loads.
      expect([bytes].map(load as (bytes: Uint8Array) => { serialize(): Uint8Array }).map((loaded) => loaded.serialize())).toEqual([bytes]);
      filter.dispose();
    }
  });

  it("fromShared() names what is wrong with the handle", () => {
    using bloom = BloomFilter.create(1000, 0.01, { shared: true });
    using block = SplitBlockBloomFilter.create(1000, 0.01, { shared: true });
    expect(() => BloomFilter.fromShared(undefined as never)).toThrow(new TypeError("handle must be what BloomFilter.share() returns, got undefined"));
    expect(() => BloomFilter.fromShared(block.share() as never)).toThrow(
      new TypeError("handle must be what BloomFilter.share() returns, got the handle of a SplitBlockBloomFilter (open it with SplitBlockBloomFilter.fromShared)"),
    );
    expect(() => SplitBlockBloomFilter.fromShared(bloom.share() as never)).toThrow(
      new TypeError("handle must be what SplitBlockBloomFilter.share() returns, got the handle of a BloomFilter (open it with BloomFilter.fromShared)"),
    );
    // A handle with a part missing or wrong names that part and shows it ("got an object" said neither).
    expect(() => BloomFilter.fromShared({ type: "BloomFilter" } as never)).toThrow(
      new TypeError("handle.memories must be the array of shared wasm memories share() gives, got undefined"),
    );
    expect(() => BloomFilter.fromShared({ ...bloom.share(), memories: bloom.share().memories[0] } as never)).toThrow(
      new TypeError("handle.memories must be the array of shared wasm memories share() gives, got a Memory"),
    );
    expect(() => SplitBlockBloomFilter.fromShared({ ...block.share(), params: null } as never)).toThrow(
      new TypeError("handle.params must be the parameters share() records, got null"),
    );
    // Only the types that can be shared have a fromShared() to point to.
    expect(() => BloomFilter.fromShared({ ...bloom.share(), type: "CuckooFilter" } as never)).toThrow(
      new TypeError(`handle.type must be "BloomFilter" (handle must be what BloomFilter.share() returns), got "CuckooFilter"`),
    );
    expect(() => BloomFilter.fromShared({ memories: [], params: {} } as never)).toThrow(new TypeError("handle must be what BloomFilter.share() returns, got an object"));
    // The filter itself posted to a worker (postMessage clones it as structuredClone does) arrives empty: said so.
    for (const [Type, filter] of [[BloomFilter, bloom], [SplitBlockBloomFilter, block]] as const) {
      expect(() => Type.fromShared(structuredClone(filter) as never)).toThrow(
        new TypeError(`handle must be what ${Type.name}.share() returns, got an object (a filter posted to another thread arrives empty: post filter.share() and open that)`),
      );
    }
    const privateMemory = new WebAssembly.Memory({ initial: 1 });
    expect(() => BloomFilter.fromShared({ ...bloom.share(), memories: [privateMemory] })).toThrow(
      new TypeError("handle.memories[0] must be a shared wasm memory from share(), got a Memory"),
    );
    const foreign = new WebAssembly.Memory({ initial: 2, maximum: 4, shared: true });
    expect(() => BloomFilter.fromShared({ ...bloom.share(), memories: [foreign] })).toThrow(/handle\.memories\[0\] must be a shared wasm memory/);
    expect(() => BloomFilter.fromShared({ ...bloom.share(), memories: [] })).toThrow(new RangeError("handle.memories must hold 1 to 64 memories, got 0"));
    // A hole in the list (postMessage keeps it) is named as the missing memory, not a failure inside bloomkit.
    expect(() => BloomFilter.fromShared({ ...bloom.share(), memories: new Array(1) })).toThrow(
      new TypeError("handle.memories[0] must be a shared wasm memory from share(), got undefined"),
    );
    expect(() => SplitBlockBloomFilter.fromShared({ ...block.share(), memories: new Array(1) })).toThrow(
      new TypeError("handle.memories[0] must be a shared wasm memory from share(), got undefined"),
    );
    const handle = bloom.share();
    expect(() => BloomFilter.fromShared({ ...handle, params: { ...handle.params, bits: handle.params.bits + 64 } })).toThrow(/do not match the filter in the 1 shared memory it holds/);
    // k and the hashing are in the memory's header too: a handle that says otherwise would set and test other bits.
    const { hashing } = handle.params;
    for (const params of [
      { ...handle.params, hashes: handle.params.hashes - 1 },
      { ...handle.params, hashing: { ...hashing, seed: 7 } },
      { ...handle.params, hashing: { ...hashing, names: ["xxh64"] } },
      { ...handle.params, hashing: { ...hashing, strategy: hashing.strategy === "triple" ? "double" : "triple" } },
      { ...handle.params, hashing: { ...hashing, strategy: "independent", names: ["fnv1a_32", "xxh32"] } },
      { ...handle.params, baseBits: handle.params.baseBits * 2 },
    ]) {
      expect(() => BloomFilter.fromShared({ ...handle, params } as never), JSON.stringify(params)).toThrow(/^handle\.params \(.*\) do not match the filter in the 1 shared memory it holds$/);
    }
    expect(() => BloomFilter.fromShared({ ...handle, params: { ...handle.params, hashing: { ...hashing, strategy: "x" } } } as never)).toThrow(
      new RangeError(`handle.params.hashing is not a hashing share() records: options.strategy must be "triple", "double" or "independent", got "x"`),
    );
    // The part of the hashing that is missing or wrong is named, with its value ("got an object" said neither).
    for (const [names, shown] of [[[], "an array of length 0"], [[hashing.names[0], "xxh64"], "an array of length 2"], ["xxh3", '"xxh3"'], [undefined, "undefined"]] as const) {
      expect(() => BloomFilter.fromShared({ ...handle, params: { ...handle.params, hashing: { ...hashing, names: names as never } } }), String(names)).toThrow(
        new TypeError(`handle.params.hashing.names must be the hash names share() recorded (one name for triple or double hashing, k names for independent), got ${shown}`),
      );
    }
    for (const part of ["seed", "strategy"] as const) {
      expect(() => BloomFilter.fromShared({ ...handle, params: { ...handle.params, hashing: { ...hashing, [part]: undefined } } }), part).toThrow(
        new TypeError(`handle.params.hashing.${part} must be the ${part} share() recorded, got undefined`),
      );
    }
    using same = BloomFilter.fromShared(handle);
    expect(same.addInts(keys).hasInts(keys).every((answer) => answer === 1)).toBe(true);
    expect(bloom.hasInts(keys).every((answer) => answer === 1)).toBe(true);
    expect(() => BloomFilter.fromShared({ ...handle, params: { ...handle.params, bits: "many" as never } })).toThrow(/handle\.params\.bits must be/);
    expect(() => BloomFilter.fromShared({ ...handle, params: { ...handle.params, hashing: undefined as never } })).toThrow(
      new TypeError("handle.params.hashing must be the hashing share() recorded, got undefined"),
    );
    const blockHandle = block.share();
    // It says what the memory holds ("the 1 shared memories it holds" said neither).
    expect(() => SplitBlockBloomFilter.fromShared({ ...blockHandle, params: { blocks: blockHandle.params.blocks * 2 } })).toThrow(
      new RangeError(`handle.params.blocks = ${blockHandle.params.blocks * 2} does not match the filter in the 1 shared memory it holds, of ${blockHandle.params.blocks} blocks`),
    );
    // A BloomFilter's memory in a split-block handle is not read as a split-block filter "of 0 blocks".
    expect(() => SplitBlockBloomFilter.fromShared({ ...blockHandle, memories: handle.memories })).toThrow(
      new RangeError(
        `handle.params.blocks = ${blockHandle.params.blocks} does not match: no split-block filter is in the 1 shared memory the handle holds (another type of filter's?)`,
      ),
    );
  });

  it("a single key that is not a key is named key, on a shared filter as on a private one (not keys[0] of the batch it goes in)", () => {
    for (const shared of [false, true]) {
      using bloom = BloomFilter.create(1000, 0.01, { shared });
      using block = SplitBlockBloomFilter.create(1000, 0.01, { shared });
      for (const filter of [bloom, block]) {
        for (const [name, call] of [
          ["has", () => filter.has(5 as never)],
          ["add", () => filter.add(5 as never)],
          ["testAndAdd", () => filter.testAndAdd(5 as never)],
        ] as const) {
          expect(call, `${filter.constructor.name}.${name}, shared: ${shared}`).toThrow(new TypeError("key must be a string or a Uint8Array, got 5"));
        }
      }
    }
  });

  it("a threads build the engine cannot compile is said to be that, not a shared memory refused", () => {
    // In a process of its own: the build is compiled once, when the first shared filter is made.
    const script = `
      import { sharedBuild } from ${JSON.stringify(new URL("../dist/wasm.js", import.meta.url).href)};
      import { BloomFilter } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)};
      sharedBuild.base64 = btoa("not wasm");
      for (const make of [() => BloomFilter.create(1000, 0.01, { shared: true }), () => BloomFilter.deserialize(BloomFilter.create(1000, 0.01).serialize(), { shared: true })]) {
        try {
          make();
          console.log("made");
        } catch (error) {
          console.log(error.constructor.name + ": " + error.message);
        }
      }
    `;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).toMatch(/^Error: cannot compile the wasm core's threads build, which filters in shared memory run on: WebAssembly\.Module\(\): .+$/);
      expect(line).not.toMatch(/refused/);
    }
  });

  it.skipIf(process.platform === "win32")("a shared memory the engine refuses is said to be refused", () => {
    // Shared filters are made until the engine refuses one's memory: each reserves gigabytes of address space
    // with its guard regions, and under a 32 GB limit on it (ulimit -v) a real refusal comes after a few
    // (measured: the second under Node 20, the third under Node 24; at 16 GB Node 24 instead ran out of heap).
    const script = `
      import { BloomFilter } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)};
      const kept = [];
      for (let i = 0; i < 1000; i++) {
        try {
          kept.push(BloomFilter.create(1000, 0.01, { shared: true }));
        } catch (error) {
          console.log(error.constructor.name + ": " + error.message);
          break;
        }
      }
    `;
    const result = spawnSync("bash", ["-c", 'ulimit -v 32000000 && exec "$0" --input-type=module -e "$1"', process.execPath, script], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toMatch(/^RangeError: cannot allocate 1\.23 KiB for a Bloom filter of 9586 bits \(1\.23 KiB\): the engine refused a shared wasm memory of that size$/);
  });

  it("{ shared: true } where the page is not cross-origin isolated says how to fix it, and allocates nothing", () => {
    (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated = false;
    expect(() => BloomFilter.create(1000, 0.01, { shared: true })).toThrow(TypeError); // as every error of an argument, not a bare Error
    expect(() => BloomFilter.create(1000, 0.01, { shared: true })).toThrow(/needs SharedArrayBuffer, which this page does not get: serve it cross-origin isolated/);
    expect(() => SplitBlockBloomFilter.withSize(64, { shared: true })).toThrow(/Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp/);
    // Private filters are unaffected.
    using filter = BloomFilter.create(1000, 0.01);
    expect(filter.addInts(keys).hasInts(keys).every((answer) => answer === 1)).toBe(true);
  });
});

describe("a shared filter held in more segments than its bits need", () => {
  it("is opened by fromShared() as deserialize(…, { shared: true }) loads it (the record of a RedisBloomFilter's copy, or of a folded filter in segments)", () => {
    // RedisBloomFilter.toBloomFilter() makes such a filter (one segment per Redis string); so does fold() of a filter above 4 GiB.
    using model = BloomFilter.withSize(1 << 16, 3);
    using spread = BloomFilter.inSegments(1 << 16, 3, model.hashing, 4);
    spread.addInts(keys);
    using loaded = BloomFilter.deserialize(spread.serialize(), { shared: true });
    expect(loaded.segmentCount).toBe(4);
    const handle = loaded.share();
    using view = BloomFilter.fromShared(handle);
    expect(view.segmentCount).toBe(4);
    expect(view.hasInts(keys).every((answer) => answer === 1)).toBe(true);
    const more = Uint32Array.from({ length: 500 }, (_, i) => 1_000_000 + i);
    view.addInts(more);
    expect(loaded.hasInts(more).every((answer) => answer === 1)).toBe(true);
    // The same keys, one thread, the same segments: the same bytes.
    spread.addInts(more);
    expect(view.serialize()).toEqual(spread.serialize());
    expect(loaded.serialize()).toEqual(spread.serialize());
    // Memories that are not all of the filter's segments are still refused.
    expect(() => BloomFilter.fromShared({ ...handle, memories: handle.memories.slice(0, 2) })).toThrow(/^handle\.memories must be the memories of one filter, all of them/);
    expect(() => BloomFilter.fromShared({ ...handle, memories: handle.memories.slice(0, 3) })).toThrow(/^handle\.memories must be the memories of one filter, all of them/);
  });

  it("is opened only from all of its memories, in order: not reordered, repeated, cut short or mixed with another filter's of the same parameters", () => {
    // Each memory's header gives the segment's m, k and hashing, the same in every segment: the memories themselves
    // record which segment of which filter they hold. A handle put together otherwise would route keys to other
    // segments than the other threads do (false negatives there).
    using model = BloomFilter.withSize(1 << 16, 3);
    using spread = BloomFilter.inSegments(1 << 16, 3, model.hashing, 2);
    spread.addInts(keys);
    const bytes = spread.serialize();
    using a = BloomFilter.deserialize(bytes, { shared: true });
    using b = BloomFilter.deserialize(bytes, { shared: true });
    const [a0, a1] = a.share().memories;
    const [, b1] = b.share().memories;
    const handle = a.share();
    for (const [memories, message] of [
      [[a1, a0], "memories[0] holds segment 2 of 2 of the filter of memories[0]"],
      [[a0, a0], "memories[1] holds segment 1 of 2 of the filter of memories[0]"],
      [[a0, b1], "memories[1] holds segment 2 of 2 of another filter"],
    ] as const) {
      expect(() => BloomFilter.fromShared({ ...handle, memories }), message).toThrow(
        new RangeError(`handle.memories must be the memories of one filter, all of them, in the order share() gives them: ${message}`),
      );
    }
    // Half of the memories, with parameters made up to fit them, is refused too.
    expect(() => BloomFilter.fromShared({ ...handle, memories: [a0], params: { ...handle.params, bits: 1 << 15, baseBits: 1 << 15 } })).toThrow(
      /^handle\.memories must be the memories of one filter, all of them, in the order share\(\) gives them: memories\[0\] holds segment 1 of 2/,
    );
    using same = BloomFilter.fromShared(handle);
    expect(same.hasInts(keys).every((answer) => answer === 1)).toBe(true);
  });
});

/** The shared build's bytes with every byte of its data segments (the core's constant tables) changed: another build of the core. */
function withOtherData(base64: string): string {
  const bytes = Buffer.from(base64, "base64");
  let at = 8;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const end = leb() + at;
    if (id === 11) {
      // The data section: active segments of memory 0 (flags 0, an i32.const offset ending in 0x0b, then the bytes).
      for (let n = leb(); n > 0; n--) {
        if (leb() !== 0) throw new Error("a data segment this test does not read");
        while (bytes[at++] !== 0x0b);
        const length = leb();
        for (let i = 0; i < length; i++) bytes[at + i] ^= 0x5a;
        at += length;
      }
    }
    at = end;
  }
  return bytes.toString("base64");
}

describe("a handle from another build of bloomkit (a second copy of the package in the app)", () => {
  it("is refused before that build's core is put over the memory, which would rewrite the constants this build's kernels read", async () => {
    // A copy of the built library whose threads build has other constant tables, as another version's may.
    const dist = fileURLToPath(new URL("../dist/", import.meta.url));
    const copy = mkdtempSync(join(tmpdir(), "bloomkit-other-build-"));
    try {
      cpSync(dist, copy, { recursive: true });
      const generated = join(copy, "wasm-bytes.generated.js");
      const source = readFileSync(generated, "utf8");
      const shared = /WASM_SHARED_BASE64 =\s*"([^"]+)"/.exec(source)![1];
      writeFileSync(generated, source.replace(shared, withOtherData(shared)));
      const other = (await import(/* @vite-ignore */ pathToFileURL(join(copy, "index.js")).href)) as typeof import("../bindings/index.js");
      const words = Array.from({ length: 2000 }, (_, i) => `key ${i}`);
      for (const [Mine, Theirs] of [
        [BloomFilter, other.BloomFilter],
        [SplitBlockBloomFilter, other.SplitBlockBloomFilter],
        [other.BloomFilter, BloomFilter],
        [other.SplitBlockBloomFilter, SplitBlockBloomFilter],
      ] as const) {
        using filter = (Mine as typeof BloomFilter).create(5000, 0.01, { shared: true }).addMany(words);
        const handle = filter.share();
        expect(() => (Theirs as typeof BloomFilter).fromShared(handle), Mine.name).toThrow(
          /^handle\.memories\[0\] must be a shared wasm memory from share\(\), got the memory of a filter made by another build of bloomkit \(build [0-9a-f]{8}; this one is [0-9a-f]{8}\): open the handle with the bloomkit that made the filter$/,
        );
        // Nothing of the other build touched the memory: every key is still present.
        expect(filter.hasMany(words).every((answer) => answer === 1), Mine.name).toBe(true);
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe("batch areas in a shared memory", () => {
  it("are taken when another thread grew the memory to its maximum and this thread's view of it lags", () => {
    // V8 shows another thread's grow to this one a moment later: until then memory.buffer has the old size. With 256
    // workers taking batch areas at once, one of them sized its grow from that old size, asked for more than the
    // maximum left, and failed ("the engine refused"). This memory lags until this thread grows it.
    class LaggingMemory extends WebAssembly.Memory {
      #seen: ArrayBufferLike;
      constructor(descriptor: WebAssembly.MemoryDescriptor) {
        super(descriptor);
        this.#seen = super.buffer;
      }
      override get buffer(): ArrayBuffer {
        return this.#seen as ArrayBuffer;
      }
      override grow(delta: number): number {
        const pages = super.grow(delta);
        this.#seen = super.buffer;
        return pages;
      }
      /** Another thread's grows, up to the maximum: not seen here. */
      growElsewhere(): void {
        for (let step = 1 << 16; step >= 1; ) {
          try {
            super.grow(step);
          } catch {
            step >>= 1;
          }
        }
      }
    }
    const Memory = WebAssembly.Memory;
    let arena: SharedArena;
    try {
      (WebAssembly as { Memory: unknown }).Memory = LaggingMemory;
      arena = SharedArena.create(4096, 1 << 16);
    } finally {
      (WebAssembly as { Memory: unknown }).Memory = Memory;
    }
    const memory = arena.memory as LaggingMemory;
    const before = memory.buffer.byteLength;
    memory.growElsewhere();
    expect(memory.buffer.byteLength).toBe(before);
    const ptr = arena.claimScratch();
    expect(ptr + arena.slotBytes).toBeLessThanOrEqual(memory.buffer.byteLength);
    expect(memory.buffer.byteLength).toBeGreaterThan(before);
  });

  it(`are taken one per thread, by its first batch, at most ${MAX_SCRATCH_SLOTS} at once, and given back by the dispose() of its last filter object`, () => {
    using filter = SplitBlockBloomFilter.create(10_000, 0.01, { shared: true });
    const handle = filter.share();
    const states = batchStates(handle.memories[0]);
    // Opening takes nothing: only a batch does, and this thread's objects share its area.
    const twin = SplitBlockBloomFilter.fromShared(handle);
    expect(Array.from(states).filter((state) => state === BUSY)).toHaveLength(0);
    filter.addInts(keys);
    expect(twin.hasInts(keys).every((answer) => answer === 1)).toBe(true);
    expect(Array.from(states).filter((state) => state === BUSY)).toHaveLength(1);
    // Other threads hold every other area.
    const mine = states.indexOf(BUSY);
    for (let i = 0; i < MAX_SCRATCH_SLOTS; i++) if (i !== mine) states[i] = BUSY;
    twin.dispose();
    filter.dispose();
    expect(states[mine]).toBe(FREE);
    const idle = SplitBlockBloomFilter.fromShared(handle);
    states[mine] = BUSY;
    expect(() => idle.hasInts(keys)).toThrow(new RegExp(`all ${MAX_SCRATCH_SLOTS} batch areas of this shared filter's memory are taken: at most ${MAX_SCRATCH_SLOTS} threads`));
    // A failed batch changed nothing: the filter still works once another thread gives an area back.
    Atomics.store(states, 7, FREE);
    expect(idle.hasInts(keys).every((answer) => answer === 1)).toBe(true);
    expect(states[7]).toBe(BUSY);
    idle.dispose();
    expect(states[7]).toBe(FREE);
  });

  it("are not used up by a thread that opens the handle for every task and drops the filter without dispose()", async () => {
    // A worker answering messages: fromShared(handle) per message, the filter left to the garbage collector,
    // which had not given the areas back yet when the 257th such filter asked for one (a RangeError).
    using filter = BloomFilter.create(10_000, 0.01, { shared: true });
    const handle = filter.share();
    const tasks = 3 * MAX_SCRATCH_SLOTS;
    for (let i = 0; i < tasks; i++) {
      BloomFilter.fromShared(handle).addInts(Uint32Array.of(i));
      if (i % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    expect(filter.hasInts(Uint32Array.from({ length: tasks }, (_, i) => i)).every((answer) => answer === 1)).toBe(true);
    expect(Array.from(batchStates(handle.memories[0])).filter((state) => state === BUSY)).toHaveLength(1);
  });
});

describe("the room for batch areas (how many threads can use a shared memory at once)", () => {
  /**
   * Batch areas the allocator hands out from `memory` before it refuses one: each is claimed by an arena of its own
   * (as a thread would), given back and marked taken again, standing in for a thread that keeps it. After each,
   * freeBatchAreas (what the CLI sizes its worker pool by) counts one fewer.
   */
  function exhaust(memory: WebAssembly.Memory, room: number): number {
    const states = batchStates(memory);
    for (let taken = 0; ; taken++) {
      expect(freeBatchAreas([memory])).toBe(room - taken);
      const arena = SharedArena.attach(memory)!;
      try {
        arena.claimScratch();
      } catch (error) {
        expect((error as Error).message).toMatch(/^all \d+ batch areas of this shared filter's memory are taken/);
        return taken;
      }
      arena.free(arena.block);
      states[states.indexOf(FREE)] = BUSY;
    }
  }

  it(`is ${MAX_SCRATCH_SLOTS} areas in the memory of a filter of moderate size, as many as the allocator gives`, () => {
    using filter = BloomFilter.create(200_000, 0.01, { shared: true });
    const memory = filter.share().memories[0] as WebAssembly.Memory;
    const { blockBytes, slotBytes } = SharedArena.attach(memory)!;
    expect(batchAreaRoom(blockBytes, slotBytes)).toBe(MAX_SCRATCH_SLOTS);
    expect(exhaust(memory, MAX_SCRATCH_SLOTS)).toBe(MAX_SCRATCH_SLOTS);
  });

  it("is fewer where the areas do not fit the 4 GiB a memory reaches, and the allocator gives exactly that many", () => {
    // Areas of 1 GiB beside a block of 1 MiB: 3 fit. The memory grows by an area at each claim, never touched.
    const arena = SharedArena.create(1 << 20, 1 << 30);
    expect(batchAreaRoom(1 << 20, 1 << 30)).toBe(3);
    expect(arena.slotCount).toBe(3);
    expect(exhaust(arena.memory, 3)).toBe(3);
  });

  it("is 3 threads for a segment of nearly 4 GiB, 1 with the independent strategy (key bytes in the areas), as the README says", () => {
    expect(batchAreaRoom(MAX_BLOCK_BYTES, scratchBytes(SHARED_KEY_BYTES))).toBe(3);
    expect(batchAreaRoom(MAX_BLOCK_BYTES, scratchBytes(SHARED_BYTES_KEY_BYTES))).toBe(1);
    // Room falls as the block grows, from the cap down.
    const sizes = [1 << 20, 2 ** 31, 4e9, 4.2e9, MAX_BLOCK_BYTES];
    const rooms = sizes.map((bytes) => batchAreaRoom(bytes, scratchBytes(SHARED_KEY_BYTES)));
    expect(rooms[0]).toBe(MAX_SCRATCH_SLOTS);
    expect(rooms).toEqual([...rooms].sort((a, b) => b - a));
  });
});

describe("batch areas of a shared filter in segments (a shared memory each)", () => {
  it("are all taken before a batch adds to any segment: a batch that cannot take one adds nothing to the others", () => {
    // Two segments of about 2 GiB each; wasm memory is committed only as it is touched.
    const bits = Math.ceil((MAX_SEGMENT_BITS + 1) / 128) * 128;
    using filter = BloomFilter.withSize(bits, 7, { shared: true });
    expect(filter.segmentCount).toBe(2);
    const handle = filter.share();
    // An integer key of each segment: routing depends on the hashing and the number of segments alone, so a
    // small private filter in two segments shows it.
    const keyOf = (segment: number): number => {
      for (let key = 0; ; key++) {
        using probe = BloomFilter.inSegments(1024, 7, filter.hashing, 2);
        probe.addInts(Uint32Array.of(key));
        if (probe.segmentBytes(segment).some((byte) => byte !== 0)) return key;
      }
    };
    const first = keyOf(0);
    const second = keyOf(1);
    // Every batch area of the second segment's memory taken by other threads.
    const states = batchStates(handle.memories[1]);
    states.fill(BUSY);
    using late = BloomFilter.fromShared(handle);
    expect(() => late.addInts(Uint32Array.of(first, second))).toThrow(new RegExp(`all ${MAX_SCRATCH_SLOTS} batch areas of this shared filter's memory are taken`));
    // Given back, never grown into: the next batch grows the memory for the area it takes.
    states.fill(0);
    // The key of the first segment was not added either.
    expect(filter.hasInts(Uint32Array.of(first, second))).toEqual(Uint8Array.of(0, 0));
    expect(filter.size).toBe(0);
    // With areas free again, the same batch goes through.
    expect(late.testAndAddInts(Uint32Array.of(first, second))).toEqual(Uint8Array.of(0, 0));
    expect(filter.hasInts(Uint32Array.of(first, second))).toEqual(Uint8Array.of(1, 1));
  });
});

describe("the shared memory's lifetime", () => {
  it("is collected once every filter over it is disposed and the handle dropped, though the disposed objects live on", () => {
    // In a process of its own with --expose-gc: create, share, open again, dispose both, drop the handle, collect.
    const script = `
      import { BloomFilter } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)};
      const collected = [];
      const registry = new FinalizationRegistry((name) => collected.push(name));
      const kept = [];
      function open(name, dispose) {
        const filter = BloomFilter.create(1_000_000, 0.01, { shared: true });
        let handle = filter.share();
        const other = BloomFilter.fromShared(handle);
        other.addInts(Uint32Array.of(1, 2, 3));
        if (!filter.hasInts(Uint32Array.of(1, 2, 3)).every((a) => a === 1)) throw new Error("not shared");
        registry.register(handle.memories[0], name);
        handle = undefined;
        if (dispose) { filter.dispose(); other.dispose(); kept.push(filter, other); }
        else kept.push(filter);
      }
      open("disposed", true);
      open("alive", false);
      for (let i = 0; i < 10 && collected.length === 0; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); }
      console.log(JSON.stringify({ collected, kept: kept.length }));
    `;
    const result = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    const { collected, kept } = JSON.parse(result.stdout) as { collected: string[]; kept: number };
    expect(kept).toBe(3);
    // The disposed pair's memory went; the one a live filter uses stayed.
    expect(collected).toEqual(["disposed"]);
  });
});

describe("a shared filter of the independent strategy (its kernel reads key bytes)", () => {
  const options = { hash: ["murmur3_32", "fnv1a_32", "xxh32"] as never, shared: true };

  it("takes chunks larger than its batch area in pieces, and answers as a private filter", () => {
    // A key of 3 MiB grows this thread's own batch area, so its chunks outgrow the shared one (1 MiB).
    using grower = BloomFilter.create(10, 0.01);
    grower.add(new Uint8Array(3 * 2 ** 20));
    using shared = BloomFilter.withSize(200_000, 3, options);
    using single = BloomFilter.withSize(200_000, 3, { hash: options.hash });
    const keys = Array.from({ length: 4000 }, (_, i) => `${i}:`.padEnd(700, "x"));
    shared.addMany(keys);
    single.addMany(keys);
    expect(shared.serialize()).toEqual(single.serialize());
    const probes = Array.from({ length: 4000 }, (_, i) => `${i + 2000}:`.padEnd(700, "x"));
    expect(shared.hasMany(probes)).toEqual(single.hasMany(probes));
  });

  it("refuses a key longer than its batch area before adding anything", () => {
    using shared = BloomFilter.withSize(200_000, 3, options);
    shared.add("before");
    const bytes = shared.serialize();
    const huge = new Uint8Array(2 * 2 ** 20 + 1);
    const holds = "more than a shared filter's batch area holds for the independent strategy (1048576 bytes)";
    expect(() => shared.addMany(["a", huge])).toThrow(new RangeError(`keys[1] is ${huge.length} bytes, ${holds}`));
    expect(() => shared.add(huge)).toThrow(new RangeError(`the key is ${huge.length} bytes, ${holds}`));
    // positions() names its argument as add() and has() do (it said "a chunk of … key bytes").
    expect(() => shared.positions(huge)).toThrow(new RangeError(`the key is ${huge.length} bytes, ${holds}`));
    expect(() => shared.addPacked(huge, Uint32Array.of(1, huge.length))).toThrow(new RangeError(`packed key 1 (bytes 1 to ${huge.length}) is ${huge.length - 1} bytes, ${holds}`));
    expect(() => shared.addLines(new TextEncoder().encode(`b\n${"y".repeat(2 ** 21)}\n`))).toThrow(new RangeError(`the line at byte 2 of buffer, with its line ending, is ${2 ** 21 + 1} bytes, ${holds}`));
    // A key of exactly the area's size does not fit with its "\n" (nor its "\r\n"), which the lines are split with there.
    for (const ending of ["\n", "\r\n"]) {
      const lines = new TextEncoder().encode(`${"b\n".repeat(40_000)}${"y".repeat(2 ** 20 - (ending.length - 1))}${ending}`);
      expect(() => shared.addLines(lines)).toThrow(new RangeError(`the line at byte 80000 of buffer, with its line ending, is ${2 ** 20 + 1} bytes, ${holds}`));
    }
    expect(shared.has("a") || shared.has("b")).toBe(false);
    expect(shared.serialize()).toEqual(bytes);
  });

  it("takes a string key whose UTF-8 fits its batch area in every one-key method, though 3 bytes a character would not", () => {
    // 400,000 ASCII characters: 400,000 bytes, where 3 bytes a character (the room a string can need) is 1.2 MB.
    const key = "k".repeat(400_000);
    using shared = BloomFilter.withSize(200_000, 3, options);
    using alone = BloomFilter.withSize(200_000, 3, { hash: options.hash });
    // positions() as the first call of each view (no batch area taken yet), then the others.
    expect(shared.positions(key)).toEqual(alone.positions(key));
    using view = BloomFilter.fromShared(shared.share());
    expect(view.positions(key)).toEqual(alone.positions(key));
    expect(shared.testAndAdd(key)).toBe(false);
    alone.add(key);
    expect(shared.has(key)).toBe(true);
    expect(shared.positions(key)).toEqual(alone.positions(key));
    expect(shared.serialize()).toEqual(alone.serialize());
    // A key whose UTF-8 does not fit is still refused, naming its length in bytes.
    expect(() => shared.positions("\u00e9".repeat(600_000))).toThrow(/1200000/);
  });
});

describe("a filter disposed by its own visit callback", () => {
  // Three pieces of lines (16,384 lines a piece at most): the callback disposes the filter after the first.
  const lines = new TextEncoder().encode(Array.from({ length: 40_000 }, (_, i) => `line ${i}`).join("\n"));
  const kinds = [
    { name: "BloomFilter", make: (shared: boolean) => BloomFilter.create(100_000, 0.01, { shared }) },
    { name: "SplitBlockBloomFilter", make: (shared: boolean) => SplitBlockBloomFilter.create(100_000, 0.01, { shared }) },
  ] as const;
  type Each = (buffer: Uint8Array, visit: () => void) => void;

  it.each(kinds)("$name: stops before its next piece, touching no memory it gave back (a new filter's block; a shared filter's batch area, taken again)", ({ name, make }) => {
    for (const shared of [false, true]) {
      for (const method of ["testAndAddLinesEach", "dedupLines", "hasLinesEach"] as const) {
        const filter = make(shared);
        const handle = shared ? filter.share() : undefined;
        let next: BloomFilter | SplitBlockBloomFilter | undefined;
        let pieces = 0;
        const visit = () => {
          pieces++;
          if (filter.disposed) return;
          filter.dispose();
          // Where the memory given back goes at once: a new filter of the same size (private), another filter
          // object over the shared memory, whose first batch takes the batch area given back (shared).
          next = !shared ? make(false) : name === "BloomFilter" ? BloomFilter.fromShared(handle as never) : SplitBlockBloomFilter.fromShared(handle as never);
          next.hasInts(Uint32Array.of(1));
        };
        const what = `${method}, shared: ${shared}`;
        expect(() => (filter[method] as Each).call(filter, lines, visit), what).toThrow(`this ${name} was disposed; it cannot be used after dispose()`);
        expect(pieces, what).toBe(1);
        if (shared) {
          // The pieces after the first were not added.
          const later = next!.hasLines(lines).subarray(16_384);
          expect(later.reduce((sum, answer) => sum + answer, 0), what).toBeLessThan(100);
        } else {
          // Nor written into the new filter's block.
          expect(next!.fillRatio, what).toBe(0);
        }
        next!.dispose();
      }
    }
  });

  it.each(kinds)("$name: the keys of the pieces added before the visit disposed the filter, or threw, are counted in size", ({ name, make }) => {
    for (const shared of [false, true]) {
      for (const method of ["testAndAddLinesEach", "dedupLines"] as const) {
        for (const stop of ["dispose", "throw"] as const) {
          const filter = make(shared);
          const handle = shared ? filter.share() : undefined;
          // Keys the first piece added: its lines answered 0 (testAndAddLinesEach), or its new lines (dedupLines).
          let added = 0;
          const visit = (first: unknown, second: unknown) => {
            added = method === "dedupLines" ? (second as number) : (first as Uint8Array).reduce((sum, answer) => sum + (answer === 0 ? 1 : 0), 0);
            if (stop === "throw") throw new Error("stop");
            filter.dispose();
          };
          const what = `${method}, shared: ${shared}, ${stop}`;
          expect(() => (filter[method] as (buffer: Uint8Array, visit: unknown) => void).call(filter, lines, visit), what).toThrow(
            stop === "throw" ? "stop" : `this ${name} was disposed; it cannot be used after dispose()`,
          );
          expect(added, what).toBeGreaterThan(16_000);
          if (stop === "throw") {
            expect(filter.size, what).toBe(added);
          } else if (shared) {
            // The filter's other objects (in this thread or others) go on counting its keys.
            using other = name === "BloomFilter" ? BloomFilter.fromShared(handle as never) : SplitBlockBloomFilter.fromShared(handle as never);
            expect(other.size, what).toBe(added);
          } else {
            expect(() => filter.size, what).toThrow(`this ${name} was disposed`);
          }
          filter.dispose();
        }
      }
    }
  });
});
