// A Bloom filter kept in Redis, shared by every process and machine that
// opens it: bloomkit computes each key's bit positions in wasm, a batch at a
// time, and Redis stores the bits in plain strings (no module needed) and
// makes each key's update atomic: a piece of a batch is one Lua script call
// (script.ts), so a key's k bits are tested and set in one step that no other
// client's command interleaves with.
//
// Keys of a filter named N, all with the hash tag {N} so that they share one
// Redis Cluster slot:
//   {N}:meta      a hash: id, format, version, bits, hashes, hash, seed, segments, and
//                 for triple hashing (version 2) strategy (meta.ts)
//   {N}:bits:s    segment s's bits, byte for byte as a local filter's (see bits.ts)
// A Redis string holds at most 2^32 bits; a larger filter is split into
// segments by key hash exactly as a local BloomFilter in as many segments
// routes keys (bloomRoute), so every key's bits lie in one Redis key.
import { BloomFilter } from "../bloom-filter.js";
import { checkReachable } from "../optimal.js";
import { checkInteger, checkNotSwapped, checkOptions, checkPositive, checkProbability, describe } from "../errors.js";
import { hashId, type HashName } from "../hash.js";
import { HASHING_OPTION_NAMES, resolveHashing, type HashingOptions } from "../hashing.js";
import { forEachPlacement, type BloomShape, type Placement } from "../indices.js";
import { checkKey, type Key } from "../keys.js";
import { concat, type KeySource } from "../batch.js";
import { CREATE_SCRIPT, allBitsKeys, PLACE_SCRIPT, REDIS_SEGMENT_BITS, UPLOAD_PIECE_SCRIPT, UPLOAD_TTL_MS, bitsKey, checkName, difference, fieldsOf, identityOf, metaFields, metaKey, parseMeta, uploadId, uploadKey, type Parameters } from "./meta.js";
import { pieces } from "./pieces.js";
import { ClientNotConnected, UnexpectedReply, asBuffer, commandsOf, integerOf, type Commands, type RedisClientLike } from "./client.js";
import { encodeOperations, runBatchScript, runStateScript, type StateMode } from "./script.js";
import { redisOffset } from "./bits.js";

export { REDIS_SEGMENT_BITS, REDIS_MAX_SEGMENTS, REDIS_MAX_BITS } from "./meta.js";

/** Pieces of one batch in flight at once: the next is computed while Redis works on the last. */
const PIECES_IN_FLIGHT = 4;
/** The script answers "0" or "1" per key. */
const ZERO = "0".charCodeAt(0);
/** Bytes per GETRANGE / SETRANGE when bit arrays are copied. */
const TRANSFER_BYTES = 1 << 24;
/**
 * Bytes per BITCOUNT when size() counts the bits set. Redis runs one command
 * at a time and serves no other client meanwhile: measured on this 2-core
 * machine (Redis 7.0), BITCOUNT reads about 3 MiB a millisecond, so 16 MiB
 * holds other clients up for about 6 ms, while one 512 MiB segment took
 * 180-220 ms and a filter of 64 of them, counted in one script, 12-14 s, far
 * past the 5 s after which Redis answers BUSY to everyone else.
 */
const COUNT_BYTES = 1 << 24;
/** BITCOUNTs of size() in flight at once: one counted while the next travels, and never more than two (about 12 ms) queued back to back. */
const COUNTS_IN_FLIGHT = 2;
/** What size() is doing, as its errors say. */
const COUNTING = "cannot count its bits";

const ALREADY_EXISTS = "a filter of that name already exists in Redis; drop() it first or choose another name";

/** Options of RedisBloomFilter.create: the hash, seed and strategy, as BloomFilter's (triple or double hashing: one key hash). */
export type RedisBloomFilterOptions = Omit<HashingOptions, "strategy" | "hash"> & { hash?: HashName; strategy?: "triple" | "double" };

/** A failure of Redis or of the connection to it, naming the filter; `cause` is the client's error. */
export class RedisFilterError extends Error {
  /** The filter's name. */
  readonly filterName: string;

  constructor(filterName: string, message: string, cause?: unknown) {
    super(`Redis filter "${filterName}": ${message}${cause === undefined ? "" : `: ${(cause as Error)?.message ?? String(cause)}`}`, { cause });
    this.name = "RedisFilterError";
    this.filterName = filterName;
  }
}

/**
 * True for an error reply of Redis (node-redis's ErrorReply, ioredis's
 * ReplyError), as opposed to a failure of the connection or the client.
 */
function isReplyError(error: unknown): boolean {
  for (let proto = error; proto !== null && typeof proto === "object"; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: string } }).constructor?.name;
    if (name === "ErrorReply" || name === "ReplyError") return true;
  }
  return false;
}

/** Why `method` refuses a client that sends commands again (Commands.resends). */
function resendsMessage(method: string): string {
  return (
    `${method} needs an ioredis client made with autoResendUnfulfilledCommands: false (for a Cluster, in redisOptions), and an ioredis Cluster made with retryDelayOnFailover: 0 too: ` +
    `otherwise (ioredis's defaults) a call whose reply a lost connection cut off ` +
    `is sent again, and that second run finds the keys the first one added, so a new key is told "present" and no client hears it as new. ` +
    "add, has and their batch forms do not depend on it"
  );
}

/** One piece of a batch on its way: its commands sent, its answers to come. */
interface Sent {
  readonly keys: number;
  readonly answers: Promise<Uint8Array>;
}

/**
 * A Bloom filter kept in Redis: create() or open() it by name from any
 * number of processes and machines; they all see one set. Every method
 * returns a promise. A batch is sent as script calls of 4,096 keys, up to
 * four at a time without waiting between them, and its answers equal a
 * local BloomFilter's with the same parameters (toBloomFilter gives one).
 */
export class RedisBloomFilter {
  readonly #redis: Commands;
  readonly #name: string;
  readonly #params: Parameters;
  readonly #shape: BloomShape;
  readonly #meta: string;
  readonly #keys: readonly string[];
  /** What each batch call checks the meta hash still says (identityOf the parameters). */
  readonly #identity: readonly string[];
  #dropped = false;

  private constructor(redis: Commands, name: string, params: Parameters) {
    this.#redis = redis;
    this.#name = name;
    this.#params = params;
    this.#shape = {
      segmentBits: params.bits / params.segments,
      segments: params.segments,
      hashes: params.hashes,
      strategy: params.hashing.strategy as "triple" | "double",
      keyHash: { id: hashId(params.hashing.names[0]), seed: params.hashing.seed },
    };
    this.#meta = metaKey(name);
    this.#keys = Array.from({ length: params.segments }, (_, s) => bitsKey(name, s));
    this.#identity = identityOf(params);
  }

  /**
   * The filter named `name`, sized as BloomFilter.create sizes one for
   * `expectedItems` keys at `falsePositiveRate`, split into Redis strings of
   * at most 2^32 bits. When a filter of that name exists with the same
   * parameters it is opened (so every worker may call create); with other
   * parameters, or when the name holds something else, create throws.
   * Without `options.hash`, an existing filter's hash is taken whatever it
   * is, and without `options.strategy` its strategy: filters made before
   * xxh3 became the default (with xxh64), or before triple hashing (with
   * double), open as they are in workers that upgrade one by one.
   */
  static async create(redis: RedisClientLike, name: string, expectedItems: number, falsePositiveRate: number, options?: RedisBloomFilterOptions): Promise<RedisBloomFilter> {
    const commands = commandsOf(redis);
    checkName(name);
    const n = checkPositive("expectedItems", expectedItems);
    checkNotSwapped("expectedItems", n, falsePositiveRate, `RedisBloomFilter.create(redis, ${describe(name)}, ${falsePositiveRate}, ${n})`);
    const p = checkProbability("falsePositiveRate", falsePositiveRate);
    // segmentBits is the tests' (below): accepted, but not offered in the list of known options.
    const checked = checkOptions("options", options, HASHING_OPTION_NAMES, ["segmentBits"]);
    if (Array.isArray(checked.hash)) throw new TypeError(`options.hash must be one hash name: a filter kept in Redis uses triple or double hashing, got ${describe(checked.hash)}`);
    if (checked.strategy !== undefined && checked.strategy !== "triple" && checked.strategy !== "double") {
      throw new RangeError(`options.strategy must be "triple" or "double" (a filter kept in Redis uses one key hash), got ${describe(checked.strategy)}`);
    }
    const hashing = resolveHashing({ hash: checked.hash, seed: checked.seed, strategy: checked.strategy }, true);
    checkReachable("expectedItems", "falsePositiveRate", n, p);
    // Internal: tests split small filters over several keys with a smaller limit than Redis's.
    const limit = checked.segmentBits === undefined ? REDIS_SEGMENT_BITS : checkInteger("options.segmentBits", checked.segmentBits, 64, REDIS_SEGMENT_BITS);
    const { bits, hashes, segments } = BloomFilter.sizing(n, p, hashing, false, limit);
    return RedisBloomFilter.#create(commands, name, { bits, hashes, hashing, segments, id: uploadId() }, { hash: checked.hash !== undefined, strategy: checked.strategy !== undefined });
  }

  /** Writes the meta hash unless it exists; an equal filter is opened (of any hash or strategy unless `chosen` says it was asked for), anything else refused. */
  static async #create(commands: Commands, name: string, params: Parameters, chosen: { hash: boolean; strategy: boolean }): Promise<RedisBloomFilter> {
    const key = metaKey(name);
    let reply: unknown;
    try {
      const bits = allBitsKeys(name);
      reply = await commands.call(key, ["EVAL", CREATE_SCRIPT, String(1 + bits.length), key, ...bits, ...metaFields(params)]);
    } catch (error) {
      throw new RedisFilterError(name, "cannot create it", error);
    }
    if (!Array.isArray(reply) || reply.length === 0 || !reply.every((item) => typeof item === "string")) {
      throw new RedisFilterError(name, "cannot create it", new UnexpectedReply("the create script (EVAL)", reply, "an array of text (a key type, then a hash's fields)"));
    }
    const [kind, ...flat] = reply as string[];
    if (kind === "created") return new RedisBloomFilter(commands, name, params);
    if (kind !== "hash") throw new RedisFilterError(name, `cannot create it: Redis key ${key} exists and holds a ${kind}, not a bloomkit filter`);
    const existing = parseMeta(fieldsOf(flat));
    if (typeof existing === "string") throw new RedisFilterError(name, `cannot create it: Redis key ${key} exists and is not a bloomkit filter (${existing})`);
    const asked = {
      ...params,
      hashing: { ...params.hashing, names: chosen.hash ? params.hashing.names : existing.hashing.names, strategy: chosen.strategy ? params.hashing.strategy : existing.hashing.strategy },
    };
    const differs = difference(asked, existing);
    if (differs) throw new RedisFilterError(name, `a filter of that name already exists in Redis with other parameters (${differs}, asked vs existing)`);
    return new RedisBloomFilter(commands, name, existing);
  }

  /** The filter named `name`, its parameters read from Redis; throws when there is none or the keys hold something else. */
  static async open(redis: RedisClientLike, name: string): Promise<RedisBloomFilter> {
    const commands = commandsOf(redis);
    checkName(name);
    const key = metaKey(name);
    let kind: unknown;
    let fields: Record<string, string> = {};
    try {
      kind = await commands.call(key, ["TYPE", key]);
      if (typeof kind !== "string") throw new UnexpectedReply("TYPE", kind, "the name of a type");
      if (kind === "hash") {
        const flat = await commands.call(key, ["HGETALL", key]);
        // Node-redis gives HGETALL as a flat list (RESP2) or, under RESP3, an object without a prototype; ioredis as a flat list: of text, fields and values in pairs.
        const entries = Array.isArray(flat) ? flat : isPlainObject(flat) ? Object.entries(flat).flat() : undefined;
        if (entries === undefined || entries.length % 2 !== 0 || !entries.every((item) => typeof item === "string")) throw new UnexpectedReply("HGETALL", flat, "a hash's fields and values, as text");
        fields = fieldsOf(entries);
      }
    } catch (error) {
      throw new RedisFilterError(name, "cannot open it", error);
    }
    // Redis has no empty hash: none read means the filter was dropped between the two commands.
    if (kind === "hash" && Object.keys(fields).length === 0) kind = "none";
    if (kind === "none") throw new RedisFilterError(name, `there is no such filter in Redis (no key ${key}); create it with RedisBloomFilter.create`);
    if (kind !== "hash") throw new RedisFilterError(name, `Redis key ${key} holds a ${kind}, not a bloomkit filter`);
    const params = parseMeta(fields);
    if (typeof params === "string") throw new RedisFilterError(name, `Redis key ${key} is not a bloomkit filter: ${params}`);
    return new RedisBloomFilter(commands, name, params);
  }

  /**
   * Uploads a local BloomFilter as a new filter named `name`, with the same
   * answers. A filter above 2^32 bits must be held in segments of at most
   * 2^32 bits (as toBloomFilter gives it); a name already in use is refused.
   */
  static async fromBloomFilter(redis: RedisClientLike, name: string, filter: BloomFilter): Promise<RedisBloomFilter> {
    const commands = commandsOf(redis);
    checkName(name);
    if (!(filter instanceof BloomFilter)) throw new TypeError(`filter must be a BloomFilter, got ${describe(filter)}`);
    if (filter.disposed) throw new TypeError("filter was disposed: fromBloomFilter() needs a live BloomFilter");
    if (filter.strategy === "independent") throw new RangeError("a filter kept in Redis uses triple or double hashing; this BloomFilter uses the independent strategy");
    if (filter.baseBits !== filter.bits) throw new RangeError(`a folded BloomFilter (${filter.baseBits} bits folded to ${filter.bits}) cannot be kept in Redis`);
    const segments = filter.segmentCount;
    const segmentBits = filter.bits / segments;
    if (segmentBits > REDIS_SEGMENT_BITS) {
      throw new RangeError(
        `this BloomFilter holds ${segmentBits} bits per segment; a Redis string holds at most ${REDIS_SEGMENT_BITS} bits, ` +
          `and keys must stay in the segment they were added to: create it with RedisBloomFilter.create and add the keys there`,
      );
    }
    const params: Parameters = { bits: filter.bits, hashes: filter.hashes, hashing: filter.hashing, segments, id: uploadId() };
    const meta = metaKey(name);
    // Every bits key the name can have: those past this filter's segments are cleared as it is placed.
    const keys = allBitsKeys(name);
    // The bits go to keys of their own first, put in place with the meta hash in one step: nobody
    // opens a half-uploaded filter, and of two uploads under one name, one wins whole.
    const upload = uploadId();
    const staging = Array.from({ length: segments }, (_, s) => uploadKey(name, upload, s));
    let placed: unknown;
    try {
      const existsReply = await commands.call(meta, ["EXISTS", meta]);
      const exists = integerOf(existsReply);
      if (exists !== 0 && exists !== 1) throw new UnexpectedReply("EXISTS", existsReply, "0 or 1");
      if (exists === 1) throw new RedisFilterError(name, ALREADY_EXISTS);
      const bytes = Math.ceil(segmentBits / 8);
      const uploaded = new Array<string>(segments).fill("0");
      for (let s = 0; s < segments; s++) {
        for (const [at, last] of byteRanges(bytes, TRANSFER_BYTES)) {
          const view = filter.segmentBytes(s).subarray(at, last + 1);
          // Redis reads a missing or short string as zero bits: only pieces with a bit set are sent.
          if (view.every((b) => b === 0)) continue;
          const expiring = await commands.call(staging[s], ["EVAL", UPLOAD_PIECE_SCRIPT, "1", staging[s], String(at), asBuffer(view.slice()), String(UPLOAD_TTL_MS)]);
          // PEXPIRE's 1: the key written was given its expiry.
          if (integerOf(expiring) !== 1) throw new UnexpectedReply("the upload script (EVAL)", expiring, "1 (the piece written, and its key set to expire)");
          uploaded[s] = "1";
        }
      }
      placed = await commands.call(meta, ["EVAL", PLACE_SCRIPT, String(1 + keys.length + segments), meta, ...keys, ...staging, uploaded.join(""), ...metaFields(params)]);
    } catch (error) {
      // Best effort: the staging keys of a failed upload are never read, only wasted, and expire if this cannot reach Redis either.
      await commands.call(meta, ["DEL", ...staging]).catch(() => {});
      if (error instanceof RedisFilterError) throw error;
      throw new RedisFilterError(name, "cannot upload the filter", error);
    }
    const outcome = integerOf(placed);
    if (outcome !== 1 && outcome !== 0 && outcome !== -1) {
      throw new RedisFilterError(name, "cannot upload the filter (it may or may not have been put in place)", new UnexpectedReply("the place script (EVAL)", placed, "1 (placed), 0 (the name is taken) or -1 (an uploaded segment expired)"));
    }
    if (outcome === -1) throw new RedisFilterError(name, `cannot upload the filter: a segment uploaded expired before the filter was put in place (uploads live ${UPLOAD_TTL_MS / 3_600_000} h); nothing was placed`);
    if (outcome === 0) throw new RedisFilterError(name, ALREADY_EXISTS);
    return new RedisBloomFilter(commands, name, params);
  }

  /** The filter's name (its Redis keys are {name}:meta and {name}:bits:0 …). */
  get name(): string {
    return this.#name;
  }

  /** m, the number of bits. */
  get bits(): number {
    return this.#params.bits;
  }

  /** k, the number of hash functions. */
  get hashes(): number {
    return this.#params.hashes;
  }

  /** The hash name. */
  get hash(): HashName {
    return this.#params.hashing.names[0];
  }

  /** The hash seed. */
  get seed(): number {
    return this.#params.hashing.seed;
  }

  /** How the k indices follow from the key hash: "triple", or "double" for filters made before triple hashing (or asked for it). */
  get strategy(): "triple" | "double" {
    return this.#shape.strategy;
  }

  /** Redis keys the bits are split over (1 up to 2^32 bits). */
  get segmentCount(): number {
    return this.#params.segments;
  }

  /** Adds a key; resolves to the filter. */
  async add(key: Key): Promise<this> {
    await this.#run(true, { kind: "keys", keys: [checkKey(key)] });
    return this;
  }

  /** True when the key is probably present; false when it is definitely absent. */
  async has(key: Key): Promise<boolean> {
    return (await this.#run(false, { kind: "keys", keys: [checkKey(key)] }))[0] === 1;
  }

  /** Adds a key; true when it was probably present before. Atomic: of several clients adding the same new key at once, exactly one is told false. */
  async testAndAdd(key: Key): Promise<boolean> {
    return (await this.#run(true, { kind: "keys", keys: [checkKey(key)] }, "testAndAdd"))[0] === 1;
  }

  /** Adds every key; resolves to the filter. */
  async addMany(keys: readonly Key[]): Promise<this> {
    await this.#run(true, { kind: "keys", keys });
    return this;
  }

  /** Queries every key: 1 = probably present, 0 = definitely absent. */
  hasMany(keys: readonly Key[]): Promise<Uint8Array> {
    return this.#run(false, { kind: "keys", keys });
  }

  /** Adds every key in order; result[i] = 1 when key i was probably present before (added by anyone, or earlier in the batch). */
  testAndAddMany(keys: readonly Key[]): Promise<Uint8Array> {
    return this.#run(true, { kind: "keys", keys }, "testAndAddMany");
  }

  /** Adds newline-delimited keys (split as BloomFilter.addLines splits them). */
  async addLines(buffer: Uint8Array): Promise<this> {
    await this.#run(true, { kind: "lines", buffer });
    return this;
  }

  /** Queries newline-delimited keys: one 0/1 per line. */
  hasLines(buffer: Uint8Array): Promise<Uint8Array> {
    return this.#run(false, { kind: "lines", buffer });
  }

  /** Adds newline-delimited keys in order; 1 where a line was probably present before. */
  testAndAddLines(buffer: Uint8Array): Promise<Uint8Array> {
    return this.#run(true, { kind: "lines", buffer }, "testAndAddLines");
  }

  /** Adds integer keys (as BloomFilter.addInts: their own key space). */
  async addInts(keys: Uint32Array | BigUint64Array): Promise<this> {
    await this.#run(true, { kind: "ints", keys });
    return this;
  }

  /** Queries integer keys: 1 = probably present, 0 = definitely absent. */
  hasInts(keys: Uint32Array | BigUint64Array): Promise<Uint8Array> {
    return this.#run(false, { kind: "ints", keys });
  }

  /** Adds integer keys in order; 1 where a key was probably present before. */
  testAndAddInts(keys: Uint32Array | BigUint64Array): Promise<Uint8Array> {
    return this.#run(true, { kind: "ints", keys }, "testAndAddInts");
  }

  /**
   * Estimated distinct keys added, from the bits set (BITCOUNT): −m/k · ln(1 − X/m),
   * rounded; Infinity when every bit is set. The bits are counted 16 MiB per
   * command, so other clients wait milliseconds, not seconds, behind a large
   * filter; bits added by others meanwhile may or may not be counted.
   */
  async size(): Promise<number> {
    // Checked before and after the count: a filter dropped, made again or damaged meanwhile is never counted.
    await this.#state("CHECK", COUNTING);
    const x = await this.#attempt(COUNTING, () => this.#countBits());
    await this.#state("CHECK", COUNTING);
    const { bits, hashes } = this.#params;
    return Math.round((-bits / hashes) * Math.log1p(-x / bits));
  }

  /** The bits set in every segment: BITCOUNT over ranges of COUNT_BYTES, COUNTS_IN_FLIGHT at a time. */
  async #countBits(): Promise<number> {
    const ranges = byteRanges(Math.ceil(this.#shape.segmentBits / 8), COUNT_BYTES);
    // A range past the end of a short or missing string counts 0 at no cost.
    const commands = this.#keys.flatMap((key) => ranges.map(([first, last]) => ["BITCOUNT", key, String(first), String(last)]));
    let next = 0;
    let set = 0;
    let failed = false;
    // Each worker sends the next command once its last is answered; after a failure none sends more.
    const worker = async () => {
      while (next < commands.length && !failed) {
        const command = commands[next++];
        let count: number;
        try {
          count = countOf(await this.#redis.call(command[1], command));
        } catch (error) {
          failed = true;
          throw error;
        }
        // Added after the await: `set += await …` would add to the total as it was before the wait, losing the other worker's counts.
        set += count;
      }
    };
    await Promise.all(Array.from({ length: Math.min(COUNTS_IN_FLIGHT, commands.length) }, worker));
    return set;
  }

  /**
   * A local BloomFilter with the same bits, hence the same answers, in as
   * many segments as Redis keys (its size is the fill-based estimate). Writes
   * by other clients during the copy may or may not be in it.
   */
  async toBloomFilter(): Promise<BloomFilter> {
    // Checked before and after the copy: a filter dropped, made again or damaged meanwhile is never returned.
    await this.#state("CHECK", "cannot read its bits");
    const { bits, hashes, hashing, segments } = this.#params;
    const filter = BloomFilter.inSegments(bits, hashes, hashing, segments);
    const bytes = Math.ceil(this.#shape.segmentBits / 8);
    try {
      for (let s = 0; s < segments; s++) {
        const key = this.#keys[s];
        for (const [at, last] of byteRanges(bytes, TRANSFER_BYTES)) {
          const piece = await this.#attempt("cannot read its bits", () => this.#redis.callBytes(key, ["GETRANGE", key, String(at), String(last)]));
          // A string shorter than the segment (bits never set past its end) reads as zeros.
          if (piece && piece.length > 0) filter.segmentBytes(s).set(piece.subarray(0, last + 1 - at), at);
        }
      }
      await this.#state("CHECK", "cannot read its bits");
    } catch (error) {
      filter.dispose();
      throw error;
    }
    filter.bitsWritten();
    return filter;
  }

  /**
   * Deletes every Redis key of the filter, every {name}:bits:<s> a segment
   * can have included (not only its own segments': bits left past them would
   * be found by a later filter of more segments); this object can no longer be used.
   * A handle whose filter was dropped, or made again under its name, by
   * someone else rejects and deletes nothing.
   */
  async drop(): Promise<void> {
    await this.#state("DROP", "cannot drop it");
    this.#dropped = true;
  }

  /** The parameters (never the bits): name, bits, hashes, hash, seed, strategy, segments. */
  toJSON(): Record<string, unknown> {
    return { name: this.#name, bits: this.bits, hashes: this.hashes, hash: this.hash, seed: this.seed, strategy: this.strategy, segments: this.segmentCount };
  }

  /** console.log and util.inspect show the parameters, as for a local filter. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `RedisBloomFilter ${JSON.stringify(this.toJSON()).replace(/"(\w+)":/g, "$1: ").replace(/,/g, ", ")}`;
  }

  #live(): void {
    if (this.#dropped) throw new TypeError(`the Redis filter "${this.#name}" was dropped by this handle; it can no longer be used`);
  }

  /** Runs STATE_SCRIPT in `mode` on every key of the filter, once its meta hash is checked. */
  async #state(mode: StateMode, what: string): Promise<void> {
    this.#live();
    const segmentBits = this.#shape.segmentBits;
    // The bits of a segment's last byte past its end (bit i is bit i & 7 of byte i >> 3); none when it ends on a byte.
    const padMask = segmentBits % 8 === 0 ? 0 : (0xff << segmentBits % 8) & 0xff;
    await this.#attempt(what, async () => {
      // DROP deletes every bits key the name can have; CHECK looks at the filter's own segments.
      const keys = mode === "DROP" ? allBitsKeys(this.#name) : this.#keys;
      const reply = await runStateScript(this.#redis, this.#meta, this.#identity, keys, mode, Math.ceil(segmentBits / 8), padMask);
      // CHECK answers "OK" only once every check passed; DROP, the number of keys deleted.
      if (mode === "CHECK" && reply !== "OK") throw new UnexpectedReply("the check script (EVALSHA)", reply, '"OK"');
      if (mode === "DROP" && !((integerOf(reply) ?? -1) >= 0)) throw new UnexpectedReply("the drop script (EVALSHA)", reply, "a count of keys deleted");
    });
  }

  /** Runs a Redis call; a failure becomes a RedisFilterError naming the filter and what was being done. */
  async #attempt<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new RedisFilterError(this.#name, what, error);
    }
  }

  /**
   * Adds (`write`) or queries a batch: every key checked first, then the
   * pieces PIECES_IN_FLIGHT at a time; one 0/1 per key.
   * `answering` names the testAndAdd method whose answers the caller acts on.
   */
  async #run(write: boolean, source: KeySource, answering?: string): Promise<Uint8Array> {
    this.#live();
    if (answering !== undefined && this.#redis.resends) throw new TypeError(resendsMessage(answering));
    const parts = pieces(source);
    const sent: Sent[] = [];
    const answers: Uint8Array[] = [];
    let done = 0;
    let failure: unknown;
    /** A call sent after the failed one added its keys, or may have (it lost its reply too). */
    let laterMayHaveAdded = false;
    for (const part of parts) {
      // Redis runs the pieces in the order sent: a write's never finds its script missing (runBatchScript).
      if (sent.length >= PIECES_IN_FLIGHT) {
        const { keys, answers: next } = sent.shift()!;
        try {
          answers.push(await next);
          done += keys;
        } catch (error) {
          failure = error;
          break;
        }
      }
      sent.push(this.#send(write, part));
    }
    for (const { keys, answers: next } of sent) {
      try {
        const got = await next;
        if (failure === undefined) {
          answers.push(got);
          done += keys;
        } else laterMayHaveAdded ||= keys > 0;
      } catch (error) {
        if (failure !== undefined && !isReplyError(error)) laterMayHaveAdded = true;
        failure ??= error;
      }
    }
    if (failure !== undefined) throw new RedisFilterError(this.#name, this.#failedBatch(write, done, failure, laterMayHaveAdded), failure);
    return concat(answers, Uint8Array);
  }

  /** What a failed batch did, for its RedisFilterError: `done` keys of it answered before `failure`, and calls sent after it may have added theirs (`later`). */
  #failedBatch(write: boolean, done: number, failure: unknown, later: boolean): string {
    // A reply is an answer: that call did not run, or ran and failed before writing. A client not connected sent nothing.
    const replied = isReplyError(failure) || failure instanceof ClientNotConnected;
    if (replied && /bit offset is not an integer or out of range/.test((failure as Error).message)) {
      // Redis refuses a bit offset past what its proto-max-bulk-len lets a string hold (512 MiB by default), before writing any.
      const bytes = Math.ceil(this.#shape.segmentBits / 8);
      return `cannot ${write ? "add" : "query"} keys: this Redis server refuses bit offsets past its strings' longest (its proto-max-bulk-len), and this filter's strings are ${bytes} bytes; raise proto-max-bulk-len to at least that, or use a filter of fewer bits`;
    }
    if (!write) return "cannot query keys";
    // A lost connection leaves the calls in flight unknown.
    const inFlight =
      failure instanceof UnexpectedReply ? "a reply could not be read: its call and the others in flight may or may not have added their keys" : "the connection failed with calls in flight, which may or may not have added their keys";
    // A refusal wrote nothing, but the calls sent after it ran all the same.
    if (done === 0) return !replied ? `cannot add keys (${inFlight})` : later ? "cannot add keys (none of the first call's keys were added; later ones may or may not be)" : "cannot add keys";
    return `cannot add keys (the first ${done} of the batch were added, each whole; later ones may or may not be${replied ? "" : `; ${inFlight}`})`;
  }

  /** Sends one piece as one script call: atomic as a whole, every key's k bits tested and set together. */
  #send(write: boolean, source: KeySource): Sent {
    const k = this.#shape.hashes;
    const placements: Placement[] = [];
    forEachPlacement(this.#shape, source, (placement) => placements.push(placement));
    const count = placements.reduce((sum, p) => sum + p.count, 0);
    // Each key's segment and offsets, then the keys in segment order (batch order within a segment).
    const segmentOf = new Uint32Array(count);
    const offsets = new Float64Array(count * k);
    for (const { first, count: n, segmentOf: segments, indices } of placements) {
      if (segments) segmentOf.set(segments, first);
      for (let i = 0; i < n * k; i++) offsets[first * k + i] = redisOffset(indices[i]);
    }
    const counts = this.#keys.map(() => 0);
    for (let i = 0; i < count; i++) counts[segmentOf[i]]++;
    const starts = counts.map((_, s) => counts.slice(0, s).reduce((a, b) => a + b, 0));
    const order = new Uint32Array(count);
    for (let i = 0; i < count; i++) order[starts[segmentOf[i]]++] = i;
    const used = counts.map((n, s) => (n > 0 ? s : -1)).filter((s) => s >= 0);
    const operations = encodeOperations(write, k, used.map((s) => counts[s]), order, (key, t) => offsets[key * k + t]);
    const answers =
      count === 0 ? Promise.resolve(new Uint8Array(0))
      : runBatchScript(this.#redis, this.#meta, this.#identity, used.map((s) => this.#keys[s]), write, k, used.map((s) => counts[s]), operations).then((reply) => {
          const out = new Uint8Array(count);
          for (let j = 0; j < count; j++) out[order[j]] = reply.charCodeAt(j) - ZERO;
          return out;
        });
    // A piece that fails after another already has is reported through that one; keep Node from calling it unhandled meanwhile.
    answers.catch(() => {});
    return { keys: count, answers };
  }
}

/** The byte ranges, first and last byte included as BITCOUNT takes them, that cut `bytes` into pieces of at most `piece`. */
function byteRanges(bytes: number, piece: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (let first = 0; first < bytes; first += piece) ranges.push([first, Math.min(bytes, first + piece) - 1]);
  return ranges;
}

/** An object of fields alone, as a client gives a map: made by {} or, as node-redis 5 makes them, with no prototype. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A BITCOUNT reply as a number (clients give integers as numbers; anything else is refused rather than summed). */
function countOf(reply: unknown): number {
  // A client may hand the integer over as text ("5"); text that is not all digits (" 5 ", "", "5e3") is no count.
  const n = integerOf(reply);
  if (n === undefined || n < 0) throw new UnexpectedReply("BITCOUNT", reply, "a count of bits");
  return n;
}
