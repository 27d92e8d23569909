// Argument checks shared by every structure. Messages name the argument and
// show the bad value, so a caller can find the mistake without a debugger.

/** A short, printable rendering of any value for error messages. */
export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "symbol") return value.toString();
  if (typeof value === "function") return value.name ? `a function (${value.name})` : "a function";
  // deserializeChunks() and the Redis calls return promises: one passed on unawaited is the likely mistake.
  if (value instanceof Promise) return "a Promise (an await is missing?)";
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && Object.is(value, -0)) return "-0";
    return String(value);
  }
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  const name = (value as object).constructor?.name;
  if (!name || name === "Object") return "an object";
  const described = `${/^[AEIO]/.test(name) ? "an" : "a"} ${name}`;
  // A typed array made in another realm (a vm context, an iframe) is not an instance of this one's: say so, or the
  // message would refuse "a Uint32Array" for not being a Uint32Array.
  const own = (globalThis as Record<string, unknown>)[name];
  if (ArrayBuffer.isView(value) && typeof own === "function" && !(value instanceof own)) return `${described} from another realm (copy it into one of this realm: ${name}.from(…))`;
  if (ArrayBuffer.isView(value) && isUnreadable(value)) {
    return `${described} ${isDetachedBuffer(value.buffer) ? "whose buffer was transferred (detached)" : "past the end of its resizable buffer (shrunk since it was made)"}`;
  }
  return described;
}

/**
 * The TypeError for a batch of keys that is not an array. A Set, a Map or an
 * iterator of keys (the usual mistake) is told to become one first; a typed
 * array is iterable too, but an array of its numbers is no batch either.
 */
export function keysNotAnArray(keys: unknown): TypeError {
  const iterable = typeof keys === "object" && keys !== null && !ArrayBuffer.isView(keys) && typeof (keys as Iterable<unknown>)[Symbol.iterator] === "function";
  const described = describe(keys);
  return new TypeError(
    `keys must be an array of strings or Uint8Arrays, got ${iterable && described === "an object" ? "an iterable object" : described}${iterable ? "; make an array of it first: Array.from(keys)" : ""}`,
  );
}

/** True for an ArrayBuffer that was transferred: it has no bytes, and any view of it throws. */
function isDetachedBuffer(buffer: ArrayBufferLike): boolean {
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/** %TypedArray%.prototype.set: it throws for a typed array that cannot be read. */
const typedArraySet = (Object.getPrototypeOf(Uint8Array.prototype) as { set(this: ArrayBufferView, source: ArrayLike<number>): void }).set;

/**
 * True for a view that reads as empty but is not: its ArrayBuffer was
 * transferred (detached), or it lies past the end of a resizable buffer
 * shrunk since it was made. Any read or copy of it throws.
 */
export function isUnreadable(view: ArrayBufferView): boolean {
  try {
    // (A DataView in either state throws here.)
    if (view.byteLength !== 0) return false;
    if (isDetachedBuffer(view.buffer)) return true;
    if ("BYTES_PER_ELEMENT" in view) typedArraySet.call(view, []);
    return false;
  } catch {
    return true;
  }
}

/** Throws the TypeError for a view named `name` that cannot be read (see isUnreadable): it would read as empty. */
export function checkReadable(name: string, view: ArrayBufferView): void {
  if (isUnreadable(view)) throw new TypeError(`${name} must be readable, got ${describe(view)}`);
}

/**
 * What to do when a create() call lacks its numbers (`BloomFilter.create()`,
 * `create(1000)`, `create({ n, p })`): the call's form and one that works,
 * with the caller's count when it is one.
 */
function createUsage(call: string, first: string, count: unknown): string {
  const n = typeof count === "number" && count > 0 && Number.isFinite(count) ? String(count) : "1_000_000";
  return `call ${call}(${first}, falsePositiveRate) with a count of keys and a rate between 0 and 1, as in ${call}(${n}, 0.01) for 1%`;
}

/**
 * A create() or sizeFor() call's two numbers, checked in that order: the
 * count (named `countName`) and falsePositiveRate. `call` (as in
 * "BloomFilter.create") names the call in the hint a missing number gets,
 * which is written only then.
 */
export function checkCreateNumbers(call: string, countName: string, count: unknown, falsePositiveRate: unknown): { n: number; p: number } {
  const usage = typeof count === "number" && typeof falsePositiveRate === "number" ? undefined : createUsage(call, countName, count);
  const n = checkPositive(countName, count, usage);
  checkNotSwapped(countName, n, falsePositiveRate, `${call}(${falsePositiveRate}, ${n})`);
  return { n, p: checkProbability("falsePositiveRate", falsePositiveRate, usage) };
}

/**
 * Refuses a count below 1 followed by a rate of 1 or more, as in
 * create(0.01, 1000): the two swapped. The percentage hint would tell
 * create(0.01, 50) "for 50% give 0.5", and following it makes a filter for a
 * hundredth of a key. `rightWayRound` is the caller's call with the two
 * numbers in their places.
 */
export function checkNotSwapped(countName: string, count: number, falsePositiveRate: unknown, rightWayRound: string): void {
  if (count < 1 && typeof falsePositiveRate === "number" && falsePositiveRate >= 1 && Number.isFinite(falsePositiveRate)) {
    throw new RangeError(
      `falsePositiveRate must be between 0 and 1 (exclusive), got ${falsePositiveRate}, and ${countName} = ${count} looks like the rate: the count of keys comes first, as in ${rightWayRound}`,
    );
  }
}

/** A number that must be finite and > 0 (counts such as n); `usage`, when given, follows a TypeError to say how to call. */
export function checkPositive(name: string, value: unknown, usage?: string): number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number, got ${describe(value)}${usage ? `; ${usage}` : ""}`);
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a positive finite number, got ${describe(value)}`);
  }
  return value;
}

/** A number of keys: finite and ≥ 0 (a fraction is allowed: the formulas are smooth in it). */
export function checkCount(name: string, value: unknown): number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`${name} must be a finite number ≥ 0, got ${describe(value)}`);
  return value;
}

/**
 * A probability strictly between 0 and 1; `usage`, when given, follows a
 * TypeError to say how to call. A value from 1 to 100 (exclusive) was most
 * likely meant as a percentage: the message gives the fraction.
 */
export function checkProbability(name: string, value: unknown, usage?: string): number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number, got ${describe(value)}${usage ? `; ${usage}` : ""}`);
  if (!(value > 0 && value < 1)) {
    const percentage = value >= 1 && value < 100 ? `; it is a fraction, not a percentage: for ${value}% give ${Number((value / 100).toPrecision(12))}` : "";
    throw new RangeError(`${name} must be between 0 and 1 (exclusive), got ${describe(value)}${percentage}`);
  }
  return value;
}

/** An integer in [min, max]. */
export function checkInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

/**
 * Refuses an options object given to a loader that takes none:
 * CountingBloomFilter.deserialize(bytes, { shared: true }) loaded a private
 * filter without a word, where deserialize(bytes, { shared: true }) refuses.
 * Anything else is left alone (records.map(X.deserialize) passes an index).
 */
export function refuseLoaderOptions(method: string, extra: unknown): void {
  if (typeof extra === "object" && extra !== null) {
    throw new TypeError(`${method} takes no options (only a BloomFilter or a SplitBlockBloomFilter can live in shared memory), got ${describe(extra)}`);
  }
}

/** Rejects option names the callee does not know, so a typo is not silently ignored; `internal` names are taken but not listed as known. */
export function checkOptions(name: string, options: unknown, known: readonly string[], internal: readonly string[] = []): Record<string, unknown> {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`${name} must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key) && !internal.includes(key)) {
      // `shared` is an option of the two filters threads can share; the others are told so, not only that it is unknown.
      const shareable = key === "shared" ? " (only a BloomFilter or a SplitBlockBloomFilter can be shared between threads)" : "";
      throw new TypeError(`unknown option ${describe(key)} in ${name}${shareable}; known options: ${known.join(", ")}`);
    }
  }
  return options as Record<string, unknown>;
}

/** Formats a byte count for messages (binary units). */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  // Past the unit's last hundredth too: 1023.996 KiB printed as "1024.00 KiB", not "1.00 MiB".
  while ((unit === 0 ? value >= 1024 : value >= 1023.995) && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(2)} ${units[unit]}`;
}

/** Integer keys are indexed by triple or double hashing over their 64-bit mix; a filter of independent hashes has no index for them. */
export function checkIntsHashing(strategy: "triple" | "double" | "independent"): asserts strategy is "triple" | "double" {
  if (strategy === "independent") throw new TypeError("integer keys need triple or double hashing; this filter uses the independent strategy");
}

/** The callback of testAndAddLinesEach, checked before any key is added. */
export function checkVisit(visit: unknown): void {
  if (typeof visit !== "function") throw new TypeError(`visit must be a function, got ${describe(visit)}`);
}

/** Integer keys: a Uint32Array or a BigUint64Array (checked before the filter's own limits, so the message is about the argument). */
export function checkIntsKeys(keys: unknown): void {
  if (!(keys instanceof Uint32Array || keys instanceof BigUint64Array)) throw new TypeError(`keys must be a Uint32Array or a BigUint64Array, got ${describe(keys)}`);
  checkReadable("keys", keys);
}

/**
 * Refuses `new Filter()` from JavaScript (the constructors are private in the
 * types): a filter is made by its static methods, and one made otherwise
 * would fail later with a message about its internals, or answer wrongly.
 */
export function checkMadeBy(made: boolean, type: string, ways: string): void {
  if (!made) throw new TypeError(`a ${type} is made by ${ways}, not by new ${type}()`);
}
