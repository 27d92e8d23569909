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
import { describe } from "../errors.js";
import type { Commands, RedisArgument } from "./client.js";
import { asBuffer } from "./client.js";
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
 * KEYS: the meta hash, then the segments' strings. ARGV: the meta fields'
 * values the handle expects (IDENTITY_FIELDS, in order), "SET" or "GET", k,
 * keys per group, the operations, then each segment's key count, in KEYS
 * order. Before any bit is touched it checks that the meta hash still
 * describes the filter the handle opened (not dropped, nor made again under
 * the name) and that every segment key holds a string or nothing: a batch
 * that fails changes nothing.
 */
export const BATCH_SCRIPT = `
local fields = redis.call('HMGET', KEYS[1], ${IDENTITY_FIELDS.map((f) => `'${f}'`).join(", ")})
for i = 1, ${IDENTITY_FIELDS.length} do
  if (fields[i] or '') ~= ARGV[i] then
    return redis.error_reply('GONE the filter was dropped, or made again under its name, since this handle opened it; open it again')
  end
end
for s = 2, #KEYS do
  local kind = redis.call('TYPE', KEYS[s]).ok
  if kind ~= 'string' and kind ~= 'none' then
    return redis.error_reply('WRONGTYPE Redis key ' .. KEYS[s] .. ' holds a ' .. kind .. ', not bits of the filter')
  end
end
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

let scriptSha: Promise<string> | undefined;

/** The script's SHA-1, as EVALSHA names it. */
function sha(): Promise<string> {
  scriptSha ??= (async () => {
    const digest = await globalThis.crypto.subtle.digest("SHA-1", new TextEncoder().encode(BATCH_SCRIPT));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  })();
  return scriptSha;
}

/**
 * Runs the script on the meta hash `meta` and the segment strings `keys` (one
 * hash slot), guarded by `identity` (identityOf the handle's parameters):
 * EVALSHA, or EVAL when this server has not seen it yet (which also caches it).
 */
export async function runBatchScript(redis: Commands, meta: string, identity: readonly string[], keys: readonly string[], write: boolean, hashes: number, counts: readonly number[], operations: Uint8Array): Promise<string> {
  const args: RedisArgument[] = [String(1 + keys.length), meta, ...keys, ...identity, write ? "SET" : "GET", String(hashes), String(keysPerGroup(hashes)), asBuffer(operations), ...counts.map(String)];
  let reply: unknown;
  try {
    reply = await redis.call(keys[0], ["EVALSHA", await sha(), ...args]);
  } catch (error) {
    if (!/NOSCRIPT/.test(String((error as Error)?.message))) throw error;
    reply = await redis.call(keys[0], ["EVAL", BATCH_SCRIPT, ...args]);
  }
  if (typeof reply !== "string") throw new TypeError(`the batch script answered ${describe(reply)}, not a string`);
  return reply;
}
