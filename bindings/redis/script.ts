// How a batch reaches Redis: one Lua script call per piece of a batch, run by
// Redis as one atomic step. The script calls BITFIELD (SET u1 returns each
// bit's old value; BITFIELD_RO GET for queries) on each segment's string and
// answers one character per key, "1" when all of its k bits were set.
//
// Measured on this machine (bench/REDIS.md, 10,000 URL keys, k = 10): one
// BITFIELD sent by the client costs the client about 180 ms (node-redis
// encodes 400,000 arguments, then parses 100,000 replies) and Redis 38 ms;
// the script costs the client about 30 ms and Redis 71 ms, and with both on
// one machine it is the faster. Its offsets travel as one binary argument. In it, every
// BITFIELD operation is laid out as struct.unpack reads it: "SET" "u1"
// offset (u32, little-endian) "1" (or "GET" "u1" offset), so one C call turns
// a group of operations into BITFIELD's arguments. struct.unpack also
// returns the position after what it read; each group therefore ends with
// "GET" "u1", which makes that number the offset of one extra GET, whose
// answer is ignored.
import type { Commands, RedisArgument } from "./client.js";
import { UnexpectedReply, asBuffer } from "./client.js";
import { IDENTITY_FIELDS } from "./meta.js";

/** BITFIELD operations per call of BITFIELD in the script: 4 values each stay well below the 8,000 results one Lua C call may return. */
export const GROUP_OPERATIONS = 1000;

/** Bytes of one operation in the script's argument: "SET" "u1" u32 "1" to set, "GET" "u1" u32 to test. */
const SET_BYTES = 10;
const GET_BYTES = 9;
/** The "GET" "u1" closing every group. */
const TRAILER_BYTES = 5;
/** The bytes of an ASCII text. */
const ASCII = (text: string) => Array.from(text, (c) => c.charCodeAt(0));
const SET_U1 = ASCII("SETu1");
const GET_U1 = ASCII("GETu1");
const ONE = "1".charCodeAt(0);

/**
 * Lua that ends a script with a GONE error, before it changes anything,
 * unless the meta hash (KEYS[1]) still holds the values ARGV[1..] that the
 * handle expects (IDENTITY_FIELDS, in order): the filter was dropped, or made
 * again under its name, since the handle opened it.
 */
const IDENTITY_GUARD = `
local fields = redis.call('HMGET', KEYS[1], ${IDENTITY_FIELDS.map((f) => `'${f}'`).join(", ")})
for i = 1, ${IDENTITY_FIELDS.length} do
  if (fields[i] or '') ~= ARGV[i] then
    return redis.error_reply('GONE the filter was dropped, or made again under its name, since this handle opened it; open it again')
  end
end
`;

/** Lua that ends a script with a WRONGTYPE error unless every segment key (KEYS[2..]) holds a string or nothing. */
const TYPE_GUARD = `
for s = 2, #KEYS do
  local kind = redis.call('TYPE', KEYS[s]).ok
  if kind ~= 'string' and kind ~= 'none' then
    return redis.error_reply('WRONGTYPE Redis key ' .. KEYS[s] .. ' holds a ' .. kind .. ', not bits of the filter')
  end
end
`;

/**
 * KEYS: the meta hash, then the segments' strings. ARGV: the meta fields'
 * values the handle expects (IDENTITY_FIELDS, in order), "SET" or "GET", k,
 * keys per group, the operations, then each segment's key count, in KEYS
 * order. Before any bit is touched it checks that the meta hash still
 * describes the filter the handle opened (not dropped, nor made again under
 * the name) and that every segment key holds a string or nothing: a batch
 * that fails changes nothing.
 */
export const BATCH_SCRIPT = `${IDENTITY_GUARD}${TYPE_GUARD}
local a = ${IDENTITY_FIELDS.length}
local write = ARGV[a + 1] == 'SET'
local k, per, ops = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), ARGV[a + 4]
local command = write and 'BITFIELD' or 'BITFIELD_RO'
local unit = write and 'c3c2I4c1' or 'c3c2I4'
local width = write and ${SET_BYTES} or ${GET_BYTES}
local formats = {}
local out, o, pos = {}, 0, 1
for s = 2, #KEYS do
  local left = tonumber(ARGV[a + 3 + s])
  while left > 0 do
    local n = math.min(per, left)
    local format = formats[n]
    if not format then
      format = '<' .. string.rep(unit, n * k) .. 'c3c2'
      formats[n] = format
    end
    local bits = redis.call(command, KEYS[s], struct.unpack(format, ops, pos))
    for j = 0, n - 1 do
      local all = 1
      for t = j * k + 1, j * k + k do
        if bits[t] == 0 then all = 0 break end
      end
      o = o + 1
      out[o] = all
    end
    pos = pos + n * k * width + ${TRAILER_BYTES}
    left = left - n
  end
end
return table.concat(out)
`;

/**
 * What a handle asks of the filter as a whole, in one atomic step after the
 * identity check. KEYS: the meta hash, then every segment's string. ARGV: the
 * identity values, the mode, the bytes of one segment, and the mask of the
 * bits past the filter's end in a segment's last byte (0 when there are none).
 * DROP deletes every key (whatever they hold: they are the filter's).
 * CHECK answers "OK" once every segment is a string no longer than a segment
 * with no bit set past the filter's end: bits that no bloomkit client writes,
 * so a damaged filter is refused rather than counted or copied. It reads a
 * length and at most one byte per segment, so it stays quick on any filter;
 * the bits themselves are counted or copied by commands of their own, each
 * over a bounded range, between two CHECKs (a script reading every segment
 * of a large filter would hold Redis for seconds).
 */
export const STATE_SCRIPT = `${IDENTITY_GUARD}
local a = ${IDENTITY_FIELDS.length}
local mode, bytes, pad = ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
if mode == 'DROP' then return redis.call('DEL', unpack(KEYS)) end
${TYPE_GUARD}
for s = 2, #KEYS do
  local length = redis.call('STRLEN', KEYS[s])
  if length > bytes then
    return redis.error_reply('CORRUPT Redis key ' .. KEYS[s] .. ' holds ' .. length .. ' bytes; the filter keeps ' .. bytes .. ' there')
  end
  if pad ~= 0 and length == bytes and bit.band(string.byte(redis.call('GETRANGE', KEYS[s], bytes - 1, bytes - 1)), pad) ~= 0 then
    return redis.error_reply('CORRUPT Redis key ' .. KEYS[s] .. ' has bits set past the end of the filter')
  end
end
return 'OK'
`;

/** What STATE_SCRIPT does after the identity check. */
export type StateMode = "DROP" | "CHECK";

/** Keys per group for k hashes. */
export function keysPerGroup(hashes: number): number {
  return Math.max(1, Math.floor(GROUP_OPERATIONS / hashes));
}

/**
 * The script's operations argument: the keys of each segment in turn (as
 * `order` lists them, segment by segment, `counts[s]` of segment s), each
 * key's k offsets from `offsetOf(key, t)`, in groups of keysPerGroup(k).
 */
export function encodeOperations(write: boolean, hashes: number, counts: readonly number[], order: ArrayLike<number>, offsetOf: (key: number, t: number) => number): Uint8Array {
  const per = keysPerGroup(hashes);
  const width = write ? SET_BYTES : GET_BYTES;
  const head = write ? SET_U1 : GET_U1;
  const groups = counts.reduce((sum, n) => sum + Math.ceil(n / per), 0);
  const bytes = new Uint8Array(order.length * hashes * width + groups * TRAILER_BYTES);
  const view = new DataView(bytes.buffer);
  let at = 0;
  let next = 0;
  for (const count of counts) {
    for (let first = 0; first < count; first += per) {
      const last = Math.min(count, first + per);
      for (let i = first; i < last; i++) {
        const key = order[next++];
        for (let t = 0; t < hashes; t++) {
          bytes.set(head, at);
          view.setUint32(at + 5, offsetOf(key, t), true);
          if (write) bytes[at + 9] = ONE;
          at += width;
        }
      }
      bytes.set(GET_U1, at);
      at += TRAILER_BYTES;
    }
  }
  return bytes;
}

/** Each script's SHA-1, as EVALSHA names it. */
const shas = new Map<string, Promise<string>>();

/** The script's SHA-1. */
function sha(script: string): Promise<string> {
  let digest = shas.get(script);
  if (digest === undefined) {
    digest = globalThis.crypto.subtle
      .digest("SHA-1", new TextEncoder().encode(script))
      .then((bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join(""));
    shas.set(script, digest);
  }
  return digest;
}

/** Runs a script on the node holding `key`: EVALSHA, or EVAL when this server has not seen it yet (which also caches it). */
async function runScript(redis: Commands, script: string, key: string, args: readonly RedisArgument[]): Promise<unknown> {
  try {
    return await redis.call(key, ["EVALSHA", await sha(script), ...args]);
  } catch (error) {
    if (!/NOSCRIPT/.test(String((error as Error)?.message))) throw error;
    return await redis.call(key, ["EVAL", script, ...args]);
  }
}

/**
 * Runs the batch script on the meta hash `meta` and the segment strings
 * `keys` (one hash slot), guarded by `identity` (identityOf the handle's
 * parameters).
 */
export async function runBatchScript(redis: Commands, meta: string, identity: readonly string[], keys: readonly string[], write: boolean, hashes: number, counts: readonly number[], operations: Uint8Array): Promise<string> {
  const args: RedisArgument[] = [String(1 + keys.length), meta, ...keys, ...identity, write ? "SET" : "GET", String(hashes), String(keysPerGroup(hashes)), asBuffer(operations), ...counts.map(String)];
  // A write sends the script itself (EVAL, 1.5 KB beside a piece's operations of up to 10 bytes per bit): with
  // EVALSHA, a piece that found it forgotten (a failover, SCRIPT FLUSH) ran again after the pieces sent behind
  // it once another client had loaded it, and testAndAdd answered "present" for the earlier copy of a key.
  const reply = write ? await redis.call(keys[0], ["EVAL", BATCH_SCRIPT, ...args]) : await runScript(redis, BATCH_SCRIPT, keys[0], args);
  // One "0" or "1" per key sent, nothing else: a shorter, longer or other answer would be read as other keys' answers.
  const count = counts.reduce((sum, n) => sum + n, 0);
  if (typeof reply !== "string" || reply.length !== count || !/^[01]*$/.test(reply)) {
    throw new UnexpectedReply(`the batch script (${write ? "EVAL" : "EVALSHA"})`, reply, `${count} characters, each 0 or 1 (one per key)`);
  }
  return reply;
}

/**
 * Runs STATE_SCRIPT over the meta hash and every segment's key, guarded by
 * `identity`; `segmentBytes` and `padMask` describe a segment's string.
 */
export function runStateScript(redis: Commands, meta: string, identity: readonly string[], keys: readonly string[], mode: StateMode, segmentBytes: number, padMask: number): Promise<unknown> {
  return runScript(redis, STATE_SCRIPT, meta, [String(1 + keys.length), meta, ...keys, ...identity, mode, String(segmentBytes), String(padMask)]);
}
