// What a filter kept in Redis is called and how its parameters are kept
// there: the key names (every one with the hash tag {name}, so that all of a
// filter's keys share one Redis Cluster slot) and the meta hash's fields.
import { describe } from "../errors.js";
import { hashBits, hashNames, isSeeded, type HashName } from "../hash.js";
import { resolveHashing, type Hashing, type HashStrategy } from "../hashing.js";
import { MAX_HASHES } from "../optimal.js";

/** Bits one Redis string holds: 512 MiB. */
export const REDIS_SEGMENT_BITS = 2 ** 32;
/** Most Redis keys (segments) one filter's bits are split over, as many as a local BloomFilter can have. */
export const REDIS_MAX_SEGMENTS = 64;
/** The largest filter kept in Redis: 64 strings of 512 MiB, 32 GiB. */
export const REDIS_MAX_BITS = REDIS_MAX_SEGMENTS * REDIS_SEGMENT_BITS;

/** What `{N}:meta`'s format field holds for a filter written by this code. */
export const META_FORMAT = "bloomkit:bloom";
/**
 * Versions of the layout of the keys and fields; a newer one is refused
 * rather than misread. Version 1 has no strategy field: its filters use
 * double hashing (every filter before triple hashing). Version 2 names its
 * strategy: a triple-hashing filter is written as version 2, so a bloomkit
 * that knows only double hashing refuses it instead of testing other bits;
 * a double-hashing one is still written as version 1, which both read.
 */
export const META_VERSION = 2;
/** The layout version of filters with double hashing and no strategy field. */
const META_VERSION_DOUBLE = 1;
/**
 * The strategies a layout version 2 filter names: triple alone, since metaFields
 * writes a double-hashing filter as version 1 (whose identity has no strategy
 * field, so a version 2 "double" would fail every batch's check).
 */
const META_V2_STRATEGIES: readonly HashStrategy[] = ["triple"];

/**
 * Creates the meta hash unless the key exists; returns the key's type and,
 * for a hash, its fields, so that create() can tell an equal filter (opened)
 * from another one (refused) in one atomic step. KEYS[1] is the meta hash,
 * KEYS[2..] every key a segment's bits can have (allBitsKeys): a new filter
 * deletes them as it writes its meta hash, since bits left there without a
 * meta hash (deleted by hand, evicted under maxmemory, or left by a bloomkit
 * without the identity check) would answer "present" for keys never added,
 * and a string longer than a new segment would make size() and
 * toBloomFilter() refuse the filter as damaged. An existing filter's keys
 * are left alone.
 */
export const CREATE_SCRIPT = `
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then
  redis.call('DEL', unpack(KEYS, 2))
  redis.call('HSET', KEYS[1], unpack(ARGV))
  return {'created'}
end
if kind ~= 'hash' then return {kind} end
local fields = redis.call('HGETALL', KEYS[1])
table.insert(fields, 1, 'hash')
return fields
`;

/**
 * How long an uploaded segment's key lives unless it is put in place (each
 * piece written sets it again): an upload cut off by a lost connection, whose
 * clean-up could not reach Redis either, leaves keys drop() does not know.
 */
export const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Writes one piece of an upload's bits (KEYS[1], ARGV[1] the byte offset,
 * ARGV[2] the bytes) and gives the key its expiry (ARGV[3] ms) in one step:
 * sent as two commands, a connection lost between them left a key that
 * never expired.
 */
export const UPLOAD_PIECE_SCRIPT = `
redis.call('SETRANGE', KEYS[1], ARGV[1], ARGV[2])
return redis.call('PEXPIRE', KEYS[1], ARGV[3])
`;

/**
 * Puts an upload in place unless the filter exists: KEYS are the meta hash,
 * every key a segment's bits can have (allBitsKeys, REDIS_MAX_SEGMENTS of
 * them), then the S keys the bits were uploaded to (missing for a segment
 * with no bit set); ARGV[1] has a '1' for each segment uploaded and a '0' for
 * each left empty, the rest are the meta fields. 1 when placed, 0 when a
 * filter of that name exists (the uploaded keys are deleted then), -1 when an
 * uploaded key is gone (expired: placing the rest would lose its keys). The
 * placed keys lose their expiry; every other bits key is deleted, those past
 * the filter's segments too: left there, a later filter of more segments
 * would find their bits (and drop() would leave them behind).
 */
export const PLACE_SCRIPT = `
local max = ${REDIS_MAX_SEGMENTS}
local s = #KEYS - 1 - max
local uploaded = ARGV[1]
local function drop_upload() for i = 1, s do redis.call('DEL', KEYS[1 + max + i]) end end
if redis.call('EXISTS', KEYS[1]) == 1 then
  drop_upload()
  return 0
end
for i = 1, s do
  if string.sub(uploaded, i, i) == '1' and redis.call('EXISTS', KEYS[1 + max + i]) == 0 then
    drop_upload()
    return -1
  end
end
for i = 1, max do
  if i <= s and string.sub(uploaded, i, i) == '1' then
    redis.call('RENAME', KEYS[1 + max + i], KEYS[1 + i])
    redis.call('PERSIST', KEYS[1 + i])
  else
    redis.call('DEL', KEYS[1 + i])
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
`;

/** The filter's numbers as kept in `{N}:meta`. */
export interface Parameters {
  readonly bits: number;
  readonly hashes: number;
  readonly hashing: Hashing;
  readonly segments: number;
  /**
   * A random id given when the filter is made (absent, "", in filters made
   * before ids): a filter dropped and made again under the name gets another,
   * so a handle to the old one stops instead of writing bits the new one
   * does not know.
   */
  readonly id?: string;
}

/** Checks a filter name: a non-empty string that can sit inside a hash tag. */
export function checkName(name: unknown, what = "name"): string {
  if (typeof name !== "string") throw new TypeError(`${what} must be a string, got ${describe(name)}`);
  if (name.length === 0) throw new RangeError(`${what} must not be empty`);
  // The name is the hash tag of every key: a brace in it would end or nest the tag.
  if (/[{}]/.test(name)) throw new RangeError(`${what} must not contain "{" or "}" (it becomes the Redis Cluster hash tag {${name}}), got ${describe(name)}`);
  // Key names go to Redis as UTF-8, where a lone surrogate becomes U+FFFD: "\ud800" would open the filter "\ufffd".
  if (/\p{Surrogate}/u.test(name)) throw new RangeError(`${what} must be text without lone surrogates (sent as UTF-8, each would become U+FFFD, the keys of another name), got ${describe(name)}`);
  return name;
}

/** The key of the filter's meta hash. */
export function metaKey(name: string): string {
  return `{${name}}:meta`;
}

/** A key for segment `segment`'s bits while they are uploaded, unique to this upload. */
export function uploadKey(name: string, upload: string, segment: number): string {
  return `{${name}}:upload:${upload}:${segment}`;
}

/** A random id for one upload's keys. */
export function uploadId(): string {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The key of segment `segment`'s bits. */
export function bitsKey(name: string, segment: number): string {
  return `{${name}}:bits:${segment}`;
}

/**
 * Every key a segment of the filter named `name` can have, whatever its size
 * (segments 0 to REDIS_MAX_SEGMENTS − 1). All carry the hash tag {name}, as
 * the meta hash does, so one script may take them all on a Redis Cluster.
 */
export function allBitsKeys(name: string): string[] {
  return Array.from({ length: REDIS_MAX_SEGMENTS }, (_, s) => bitsKey(name, s));
}

/** The meta hash's fields, flat, as HSET takes them. */
export function metaFields(p: Parameters): string[] {
  return [
    ...(p.id ? ["id", p.id] : []),
    "format", META_FORMAT,
    ...(p.hashing.strategy === "double" ? ["version", String(META_VERSION_DOUBLE)] : ["version", String(META_VERSION), "strategy", p.hashing.strategy]),
    "bits", String(p.bits),
    "hashes", String(p.hashes),
    "hash", p.hashing.names[0],
    "seed", String(p.hashing.seed),
    "segments", String(p.segments),
  ];
}

/** The first way two filters' numbers differ, or undefined. */
export function difference(a: Parameters, b: Parameters): string | undefined {
  if (a.bits !== b.bits) return `bits ${a.bits} vs ${b.bits}`;
  if (a.hashing.strategy !== b.hashing.strategy) return `strategy ${a.hashing.strategy} vs ${b.hashing.strategy}`;
  if (a.hashes !== b.hashes) return `hashes ${a.hashes} vs ${b.hashes}`;
  if (a.hashing.names[0] !== b.hashing.names[0]) return `hash ${a.hashing.names[0]} vs ${b.hashing.names[0]}`;
  if (a.hashing.seed !== b.hashing.seed) return `seed ${a.hashing.seed} vs ${b.hashing.seed}`;
  if (a.segments !== b.segments) return `segments ${a.segments} vs ${b.segments}`;
  return undefined;
}

/** A meta field's whole number, written in decimal digits as metaFields writes it ("1e3", "0x10", " 7" or "" are not), or NaN. */
function wholeNumber(text: string | undefined): number {
  return text !== undefined && /^(?:0|[1-9][0-9]{0,15})$/.test(text) ? Number(text) : NaN;
}

/**
 * A filter's numbers from its meta hash's fields, or a message saying why they
 * are not a bloomkit filter's. Every field must be written exactly as
 * metaFields writes it: each batch compares the fields as text, so a value
 * read leniently here ("1e3" for 1000) would make every later call fail.
 */
export function parseMeta(fields: Record<string, string>): Parameters | string {
  if (fields.format !== META_FORMAT) return `its format field is ${describe(fields.format)}, not "${META_FORMAT}"`;
  if (fields.version !== String(META_VERSION) && fields.version !== String(META_VERSION_DOUBLE)) {
    return `it has layout version ${describe(fields.version)}; this bloomkit reads versions ${META_VERSION_DOUBLE} and ${META_VERSION}`;
  }
  const strategy = fields.version === String(META_VERSION_DOUBLE) ? (fields.strategy === undefined ? "double" : undefined) : META_V2_STRATEGIES.find((s) => s === fields.strategy);
  if (strategy === undefined) return `strategy = ${describe(fields.strategy)} is not one a layout version ${fields.version} filter has (${fields.version === String(META_VERSION_DOUBLE) ? "none" : META_V2_STRATEGIES.join(", ")})`;
  const bits = wholeNumber(fields.bits);
  const hashes = wholeNumber(fields.hashes);
  const seed = wholeNumber(fields.seed);
  const segments = wholeNumber(fields.segments);
  if (!(bits >= 1 && bits <= REDIS_MAX_BITS)) return `bits = ${describe(fields.bits)} is not a whole number from 1 to ${REDIS_MAX_BITS}`;
  if (!(hashes >= 1 && hashes <= MAX_HASHES)) return `hashes = ${describe(fields.hashes)} is not a whole number from 1 to ${MAX_HASHES}`;
  if (!(seed >= 0 && seed <= 0xffffffff)) return `seed = ${describe(fields.seed)} is not a whole number from 0 to ${0xffffffff}`;
  if (!(segments >= 1 && segments <= REDIS_MAX_SEGMENTS) || bits / segments > REDIS_SEGMENT_BITS || (segments > 1 && bits % (64 * segments) !== 0)) {
    return `${describe(fields.bits)} bits cannot be held in ${describe(fields.segments)} segments`;
  }
  if (!hashNames.includes(fields.hash as HashName)) return `hash = ${describe(fields.hash)} is not a hash this bloomkit knows (${hashNames.join(", ")})`;
  const hash = fields.hash as HashName;
  if (hashBits(hash) < 64) return `hash = ${describe(hash)} gives ${hashBits(hash)} bits; a filter kept in Redis uses ${strategy} hashing, which needs 64 or 128`;
  if (seed !== 0 && !isSeeded(hash)) return `seed = ${seed}, but ${hash} takes no seed`;
  return { bits, hashes, hashing: resolveHashing({ strategy, hash, seed }, true), segments, id: fields.id ?? "" };
}

/** What a handle checks `{N}:meta` still says before each batch (the batch script's guard): the id and the numbers, as HMGET gives them. */
export const IDENTITY_FIELDS = ["id", "bits", "hashes", "hash", "seed", "segments", "strategy"] as const;

/** The values of IDENTITY_FIELDS for these parameters, as metaFields writes them ("" for a field it leaves out: the id of a filter made before ids). */
export function identityOf(p: Parameters): string[] {
  const fields = fieldsOf(metaFields(p));
  return IDENTITY_FIELDS.map((field) => fields[field] ?? "");
}

/** A flat [field, value, …] reply as an object. */
export function fieldsOf(flat: readonly unknown[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1]);
  return fields;
}
