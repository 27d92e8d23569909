// `--redis URL --name NAME`: dedup and query with a filter kept in Redis, so
// several processes (on several machines) share one set of seen lines. The
// Redis client (the `redis` package) is loaded only when --redis is given.
import { RedisBloomFilter, RedisFilterError } from "bloomkit/redis";
import { CliError, UsageError, type OptionSpec, type Parsed } from "./args.js";
import { inWords } from "./os-errors.js";
import { onCleanup } from "./cleanup.js";

/**
 * How long one call (a piece of lines, a batch of keys) may wait for Redis, by
 * default: a server stopped or hung kept the command waiting for ever. A
 * piece of 20,000 lines takes 0.1–0.4 s on a Redis serving four clients on
 * this machine (bench/REDIS.md): 60 s leaves room for a busy server.
 */
const DEFAULT_REPLY_TIMEOUT_S = 60;

export const redisOptions: OptionSpec[] = [
  { name: "redis", value: "URL", help: "use a filter kept in Redis, shared with other processes (redis://host:port/db)" },
  { name: "name", value: "NAME", help: "the Redis filter's name (with --redis)" },
  { name: "redis-timeout", value: "SECONDS", help: `give up when Redis has not answered a call within SECONDS (with --redis; default ${DEFAULT_REPLY_TIMEOUT_S})` },
];

/** How long a connection attempt may take, until the server has answered the client's first commands. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Where the filter is kept: the --redis URL, --name, and --redis-timeout in ms. */
export interface RedisTarget {
  readonly url: string;
  readonly name: string;
  readonly timeoutMs: number;
}

/** A connected filter kept in Redis and the way to let go of it. */
export interface SharedFilter {
  readonly filter: RedisBloomFilter;
  close(): Promise<void>;
}

/** The parts of a node-redis client the CLI uses. */
interface Client {
  connect(): Promise<unknown>;
  on(event: "error", listener: (error: Error) => void): unknown;
  close?(): Promise<void>;
  quit?(): Promise<unknown>;
  destroy(): void;
}

/**
 * `url` as messages show it: its password, if any, replaced by "***", so that
 * an error copied from a terminal or a log does not give it away.
 */
function shownUrl(url: string): string {
  // The user part ends at the last "@": a Redis URL has none after it, and so a password that holds "/", "?" or "#" unescaped is hidden too.
  const login = /^([a-z][a-z0-9+.-]*:\/\/)(.*)@/is.exec(url);
  const colon = login ? login[2].indexOf(":") : -1;
  return login && colon >= 0 ? `${login[1]}${login[2].slice(0, colon)}:***${url.slice(login[0].length - 1)}` : url;
}

/** The --redis, --name and --redis-timeout values, or undefined without --redis; a UsageError when one comes without --redis. */
export function redisTarget(options: Parsed["options"]): RedisTarget | undefined {
  const url = options.get("redis");
  const name = options.get("name");
  const timeout = options.get("redis-timeout");
  if (url === undefined) {
    if (name !== undefined) throw new UsageError("--name names a filter kept in Redis: give --redis URL too");
    if (timeout !== undefined) throw new UsageError("--redis-timeout is for a filter kept in Redis: give --redis URL and --name too");
    return undefined;
  }
  // A plain decimal: Number() would take "0x10", " " (0) or "1_0" (NaN) its own ways.
  const written = String(timeout ?? DEFAULT_REPLY_TIMEOUT_S).trim();
  const seconds = /^(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(written) ? Number(written) : NaN;
  // Past 2^31 − 1 ms a timer fires at once: a day is a longer wait than any call needs.
  if (!(seconds >= 0.001 && seconds <= 86_400)) {
    throw new UsageError(`--redis-timeout must be a number of seconds from 0.001 to 86400 (a day), got "${timeout}"`);
  }
  if (typeof name !== "string" || name === "") throw new UsageError("--redis needs --name NAME, the filter's name");
  const form = `--redis must be a URL such as redis://127.0.0.1:6379/0, got "${shownUrl(String(url))}"`;
  if (typeof url !== "string" || !/^rediss?:\/\//.test(url)) throw new UsageError(form);
  let parsed: URL;
  try {
    parsed = new URL(url); // a port past 65535 fails here
  } catch {
    throw new UsageError(form);
  }
  // The client reads the path as the database number: anything else is refused there, in its own words.
  const db = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (parsed.hostname === "" || !/^\d*$/.test(db)) throw new UsageError(`${form}: the host, then a database number (0 …) as the path`);
  return { url, name, timeoutMs: Math.max(1, Math.round(seconds * 1000)) };
}

/** Whether a failed Redis call lost the connection (the server went away, or the network), rather than being refused by Redis. */
function connectionLost(cause: unknown): boolean {
  const { code, name, message } = (cause ?? {}) as NodeJS.ErrnoException;
  return (
    (typeof code === "string" && ["EPIPE", "ECONNRESET", "ECONNREFUSED", "ECONNABORTED", "ETIMEDOUT", "ENOTCONN", "EHOSTUNREACH"].includes(code)) ||
    ["SocketClosedUnexpectedlyError", "ClientClosedError", "ClientOfflineError", "ConnectionTimeoutError"].includes(String(name)) ||
    /socket closed|client is closed/i.test(String(message))
  );
}

/**
 * Runs a call on a filter kept in Redis; its failure becomes one line in
 * plain words: a lost connection says so, Redis's refusals lose the script's
 * id and the library's account of a batch (dedup gives its own, in lines).
 */
export async function inRedis<T>(target: RedisTarget, call: () => Promise<T>): Promise<T> {
  try {
    return await answered(target, call);
  } catch (error) {
    if (!(error instanceof RedisFilterError)) throw error;
    if (connectionLost(error.cause)) {
      // An errno in words (connection reset by peer …); node-redis's own "Socket closed unexpectedly" in ours.
      const how = typeof (error.cause as NodeJS.ErrnoException)?.code === "string" ? inWords(error.cause) : "the server closed it";
      throw new CliError(`lost the connection to Redis at ${shownUrl(target.url)} (${how})`);
    }
    throw new CliError(error.message.replace(/ script: [0-9a-f]{40}, on @user_script:\d+\.?/, "").replace(/ \((the first \d+ of the batch were added|none of the first call's keys were added)[^)]*\)/, "").replace(/\.$/, ""));
  }
}

/**
 * What `call` resolves to, or a CliError once --redis-timeout passes without
 * its answer. The call goes on unanswered: the command ends, and its cleanup
 * closes the connection.
 */
function answered<T>(target: RedisTarget, call: () => Promise<T>): Promise<T> {
  const said = `Redis at ${shownUrl(target.url)} did not answer within ${target.timeoutMs / 1000} s (--redis-timeout): the server is stopped, hung or overloaded`;
  return within(target.timeoutMs, call(), new CliError(said));
}

/** What `promise` resolves to, or `late` thrown once `ms` pass without it. */
async function within<T>(ms: number, promise: Promise<T>, late: Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late), ms);
  });
  try {
    return await Promise.race([promise, waited]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects and opens the filter `name`, or creates it when `size` is given
 * (opening it when it exists with the same parameters). Errors are one line.
 */
export async function openShared(target: RedisTarget, size?: { n: number; p: number }, creates = size !== undefined): Promise<SharedFilter> {
  const { url, name } = target;
  let createClient: (options: object) => Client;
  try {
    ({ createClient } = (await import("redis")) as unknown as { createClient: (options: object) => Client });
  } catch {
    throw new CliError("--redis needs the redis package (node-redis 5): npm install redis");
  }
  let lastError: Error | undefined;
  // No reconnecting: a lost connection ends the command with an error instead of a wait.
  const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: CONNECT_TIMEOUT_MS } });
  client.on("error", (error) => (lastError = error));
  // The client's connectTimeout ends a TCP connection not made in time; a server that takes the connection and never
  // answers (a Redis stopped, another program on that port) would keep connect() waiting for ever.
  const unanswered = new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`);
  try {
    await within(CONNECT_TIMEOUT_MS, client.connect(), unanswered);
  } catch (error) {
    try {
      client.destroy();
    } catch {
      // Not open: nothing to end.
    }
    throw new CliError(`cannot connect to Redis at ${shownUrl(url)}: ${inWords(error === unanswered ? error : (lastError ?? error))}`);
  }
  const unregister = onCleanup(() => client.destroy());
  const close = async () => {
    unregister();
    try {
      await (client.close ?? client.quit)?.call(client);
    } catch {
      client.destroy();
    }
  };
  try {
    const filter = await answered(target, () => (size ? RedisBloomFilter.create(client as never, name, size.n, size.p) : RedisBloomFilter.open(client as never, name)));
    return { filter, close };
  } catch (error) {
    // Not close(), which waits for the calls sent: after --redis-timeout, one the server never answers kept the
    // command waiting for ever.
    unregister();
    client.destroy();
    if (error instanceof RedisFilterError && !size && /no such filter/.test(error.message)) {
      throw new CliError(`there is no filter "${name}" in Redis at ${shownUrl(url)}${creates ? ": give --n (and --p) to create it" : ""}`);
    }
    // The library checks the name: "name must not contain …" is about --name.
    if ((error instanceof RangeError || error instanceof TypeError) && /^name must /.test(error.message)) throw new UsageError(`--${error.message}`);
    throw error instanceof RedisFilterError ? new CliError(error.message) : error;
  }
}

/** Where each line of a piece ends (after its "\n"; the last line may have none), as splitLines gives them. */
export function lineEnds(piece: Uint8Array): Uint32Array {
  const ends: number[] = [];
  let at = 0;
  while (at < piece.length) {
    const newline = piece.indexOf(10, at);
    at = newline < 0 ? piece.length : newline + 1;
    ends.push(at);
  }
  return Uint32Array.from(ends);
}
