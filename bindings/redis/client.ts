// The few things bloomkit asks of a Redis client, over the clients people
// use: node-redis 5 (createClient, createCluster) and ioredis (Redis,
// Cluster). Nothing here imports a client: the caller passes one in, and the
// main entry never loads this file.
import { describe } from "../errors.js";

/** One argument of a command: text, or bytes (a Node Buffer) for bit arrays. */
export type RedisArgument = string | Uint8Array;

/**
 * The commands a RedisBloomFilter sends, each to the master holding `key`
 * (every key of a filter shares one hash slot). Never to a replica, even
 * read-only ones: a replica applies the master's writes later, so a filter
 * just made would be missing there and a copy of its bits would lack keys
 * whose add had already returned.
 */
export interface Commands {
  /** Sends one command. Replies as the client gives them (bulk strings as text). */
  call(key: string, args: readonly RedisArgument[]): Promise<unknown>;
  /** Sends one command whose bulk-string reply is binary (GETRANGE): a Uint8Array, or null. */
  callBytes(key: string, args: readonly RedisArgument[]): Promise<Uint8Array | null>;
  /**
   * True when the client sends a command again after a lost connection cut
   * off its reply (ioredis's autoResendUnfulfilledCommands, on by default,
   * and an ioredis Cluster's retryDelayOnFailover, 100 ms by default): the
   * command may then run twice.
   */
  readonly resends: boolean;
}

/** The parts of a node-redis 5 client bloomkit uses. */
export interface NodeRedisClientLike {
  sendCommand(args: readonly RedisArgument[], options?: object): Promise<unknown>;
}

/** The parts of a node-redis 5 cluster bloomkit uses. */
export interface NodeRedisClusterLike {
  sendCommand(firstKey: RedisArgument | undefined, isReadonly: boolean | undefined, args: readonly RedisArgument[], options?: object): Promise<unknown>;
  readonly masters: unknown;
}

/** The parts of an ioredis client or cluster bloomkit uses. */
export interface IoRedisLike {
  // Its overloads take a callback too: arguments are typed loosely so that they match.
  call(command: string, ...args: unknown[]): Promise<unknown>;
  callBuffer(command: string, ...args: unknown[]): Promise<unknown>;
}

/** The options of an ioredis client (`options`) or cluster (`options.redisOptions`, for each node) that bloomkit reads. */
interface IoRedisOptions {
  autoResendUnfulfilledCommands?: boolean;
  redisOptions?: { autoResendUnfulfilledCommands?: boolean };
  retryDelayOnFailover?: number;
}

/**
 * True unless an ioredis client was made with autoResendUnfulfilledCommands:
 * false (ioredis's default is true); for a Cluster, unless its redisOptions
 * say so and it was made with retryDelayOnFailover: 0 too. A Cluster's nodes
 * do not reconnect: their calls cut off are rejected with "Connection is
 * closed.", and the Cluster sends each of those again itself after
 * retryDelayOnFailover ms (100 by default) whatever its nodes' option says.
 */
function ioRedisResends(client: object): boolean {
  const options = (client as { options?: IoRedisOptions }).options;
  // A Cluster is the one with nodes(); ioredis fills in its defaults, so an option absent here is one the caller did not change.
  if (!has(client, "nodes")) return options?.autoResendUnfulfilledCommands !== false;
  const retryDelay = options?.retryDelayOnFailover;
  // ioredis retries only after a delay above 0.
  return options?.redisOptions?.autoResendUnfulfilledCommands !== false || !(typeof retryDelay === "number" && retryDelay <= 0);
}

/** A Redis client bloomkit can use: node-redis 5's createClient() or createCluster(), or ioredis's Redis or Cluster. */
export type RedisClientLike = NodeRedisClientLike | NodeRedisClusterLike | IoRedisLike;

/** node-redis's RESP type code of a bulk string ('$'): its typeMapping maps it to Buffer for binary replies. */
const RESP_BLOB_STRING = 36;

const NodeBuffer = (globalThis as { Buffer?: { from(bytes: ArrayBufferLike, offset: number, length: number): Uint8Array; isBuffer(value: unknown): boolean } }).Buffer;

/** Bytes as the clients take binary arguments: a Node Buffer over the same memory (no copy). */
export function asBuffer(bytes: Uint8Array): Uint8Array {
  if (!NodeBuffer) throw new Error("bloomkit/redis needs Node.js (its Redis clients send binary arguments as Buffers)");
  return NodeBuffer.isBuffer(bytes) ? bytes : NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** True for a function-valued property. */
function has(value: object, name: string): boolean {
  return typeof (value as Record<string, unknown>)[name] === "function";
}

/**
 * A reply of a shape that Redis never gives to `command` (a client of
 * another version, or a proxy before Redis, changed it): refused, showing
 * it, rather than read as something it is not. Redis did answer, so the
 * command ran, but what it did cannot be told from the reply.
 */
export class UnexpectedReply extends Error {
  constructor(command: string, reply: unknown, expected: string) {
    super(`${command} answered ${describe(reply)}, not ${expected}`);
    this.name = "UnexpectedReply";
  }
}

/**
 * A command not sent because the client is not connected: a node-redis
 * client or cluster not open (never connected, or closed since), or an
 * ioredis client made with lazyConnect and enableOfflineQueue: false, not yet
 * connected. Such a client refuses every command, node-redis's with "The
 * client is closed", a cluster's with an error from inside node-redis.
 */
export class ClientNotConnected extends Error {
  constructor(which: string) {
    super(`the client is not connected (${which}): connect the client first (await client.connect())`);
    this.name = "ClientNotConnected";
  }
}

/** Sends through a node-redis client or cluster unless its isOpen says it is not connected. */
function whenOpen<T>(client: object, send: () => Promise<T>): Promise<T> {
  return (client as { isOpen?: unknown }).isOpen === false ? Promise.reject(new ClientNotConnected("node-redis's isOpen is false")) : send();
}

/**
 * Sends through an ioredis client unless it was made with lazyConnect and
 * enableOfflineQueue: false and is not yet connected ("wait"): with the
 * offline queue, the first command connects it.
 */
function whenConnectable<T>(client: object, send: () => Promise<T>): Promise<T> {
  const { status, options } = client as { status?: unknown; options?: { enableOfflineQueue?: unknown } };
  if (status === "wait" && options?.enableOfflineQueue === false) return Promise.reject(new ClientNotConnected("an ioredis client made with lazyConnect and enableOfflineQueue: false"));
  return send();
}

/** A reply that is a whole number (clients give integers as numbers; some as bigints, or as text of digits), or undefined. */
export function integerOf(reply: unknown): number | undefined {
  // Text that is not all digits (" 5 ", "", "5e3", "1.0") is no integer.
  const n = typeof reply === "number" || typeof reply === "bigint" ? Number(reply) : typeof reply === "string" && /^-?\d+$/.test(reply) ? Number(reply) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** `command`'s bulk-string reply as bytes (null for a missing key). */
function bytesOf(command: unknown, reply: unknown): Uint8Array | null {
  if (reply === null || reply === undefined) return null;
  if (reply instanceof Uint8Array) return reply;
  throw new UnexpectedReply(String(command), reply, "bytes (a binary reply)");
}

/** The adapter for `client`, or a TypeError naming what it is not. */
export function commandsOf(client: unknown, name = "redis"): Commands {
  if (client === null || typeof client !== "object") throw new TypeError(`${name} must be a connected Redis client (node-redis 5 or ioredis), got ${describe(client)}`);
  const binary = { typeMapping: { [RESP_BLOB_STRING]: NodeBuffer } };
  if (has(client, "callBuffer") && has(client, "call")) {
    const io = client as IoRedisLike;
    // The names stay upper-case: an ioredis Cluster made with scaleReads "slave" sends a command to a replica
    // when its name, as given, is a read-only one in its command table, which is lower-case.
    return {
      call: (_key, [command, ...args]) => whenConnectable(io, () => io.call(command as string, ...args)),
      callBytes: async (_key, [command, ...args]) => bytesOf(command, await whenConnectable(io, () => io.callBuffer(command as string, ...args))),
      resends: ioRedisResends(io),
    };
  }
  // A Sentinel's sendCommand(isReadonly, args), and a lease's from it, would read the command as isReadonly;
  // and both send a call cut off by a lost connection again. Of the clients here, only a lease has release().
  const sentinelKind = !has(client, "sendCommand") ? undefined : has(client, "getMasterNode") ? "Sentinel (createSentinel)" : has(client, "release") ? "Sentinel lease (acquire() or use())" : undefined;
  if (sentinelKind) {
    throw new TypeError(
      `${name} must be a connected Redis client (node-redis 5's createClient or createCluster, or ioredis), got a node-redis ${sentinelKind}, which bloomkit does not take: ` +
        "connect createClient to the master the Sentinel names (getMasterNode())",
    );
  }
  if (has(client, "sendCommand") && "masters" in client) {
    const cluster = client as NodeRedisClusterLike;
    return {
      // isReadonly false: with useReplicas, node-redis would send read-only commands to replicas too.
      call: (key, args) => whenOpen(cluster, () => cluster.sendCommand(key, false, args)),
      callBytes: async (key, args) => bytesOf(args[0], await whenOpen(cluster, () => cluster.sendCommand(key, false, args, binary))),
      resends: false, // node-redis rejects the commands a lost connection cut off
    };
  }
  if (has(client, "sendCommand")) {
    const single = client as NodeRedisClientLike;
    return {
      call: (_key, args) => whenOpen(single, () => single.sendCommand(args)),
      callBytes: async (_key, args) => bytesOf(args[0], await whenOpen(single, () => single.sendCommand(args, binary))),
      resends: false,
    };
  }
  throw new TypeError(`${name} must be a connected Redis client (node-redis 5's createClient or createCluster, or ioredis), got ${describe(client)}`);
}
