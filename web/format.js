// Numbers as a reader takes them in: "0.82%", "1 in 45,000", "12,345 bits";
// never "2.24e-10%" or "1.1e+2%".

const en = new Intl.NumberFormat("en-US");
/** Below this a rate reads better as "1 in N" than as a percentage. */
const ONE_IN_BELOW = 0.0001;

/** A whole number with thousands separators. */
export function count(value) {
  return en.format(Math.round(value));
}

/** "1 key", "2 keys". */
export function plural(value, one, many = `${one}s`) {
  return `${count(value)} ${value === 1 ? one : many}`;
}

/** Names for large "1 in N", largest first. */
const UNITS = [
  [1e15, "quadrillion"],
  [1e12, "trillion"],
  [1e9, "billion"],
];

/** `value` (> 0) rounded to `digits` significant digits. */
function rounded(value, digits) {
  const unit = 10 ** (Math.floor(Math.log10(value)) - digits + 1);
  return Math.round(value / unit) * unit;
}

/** A number with `digits` significant digits, no exponent, separators in the integer part. */
function significant(value, digits) {
  if (value >= 10 ** digits) return count(rounded(value, digits));
  return new Intl.NumberFormat("en-US", { maximumSignificantDigits: digits }).format(value);
}

/** A probability in [0, 1]: "0%", "0.82%", "100%", or "1 in 4.5 billion" when tiny. */
export function rate(value) {
  if (!(value > 0)) return "0%";
  if (value >= 1) return "100%";
  if (value > 0.999) return "over 99.9%";
  if (value >= ONE_IN_BELOW) return `${significant(value * 100, 3)}%`;
  const oneIn = 1 / value;
  if (oneIn >= 1e15) return "below 1 in a quadrillion";
  // Rounded before the unit is chosen: 999,000,000 reads "1 billion", not "1,000,000,000" (nor 999 billion "1,000 billion").
  const shown = rounded(oneIn, 2);
  const [unit, name] = UNITS.find(([size]) => shown >= size) ?? [1, ""];
  return `1 in ${significant(shown / unit, 2)}${name ? ` ${name}` : ""}`;
}

/** Bits per key, one decimal: "9.6", "2,875.5"; below 1, two significant digits ("0.01", "0.53"): 1 bit for 100 keys is not "0.0" per key. */
export function perKey(value) {
  if (value < 1) return new Intl.NumberFormat("en-US", { maximumSignificantDigits: 2 }).format(value);
  return new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);
}

/**
 * A fraction in [0, 1] as a percentage with one decimal ("34.2%"), for fills
 * and loads: never "0.0%" of a filter with bits set, nor "100.0%" of one with
 * bits clear (a few keys in 16 million bits, a filter all but full).
 */
export function percent(value) {
  const shown = (Math.min(1, Math.max(0, value)) * 100).toFixed(1);
  if (shown === "0.0" && value > 0) return "<0.1%";
  if (shown === "100.0" && value < 1) return ">99.9%";
  return `${shown}%`;
}

/** Characters of a key the page writes out: a key of millions of characters would take the tab seconds to lay out, several times over. */
const KEY_SHOWN = 200;

/** A key in quotes as the page writes it: “key”, or its first 200 characters, “…” and its length. The filter always gets the whole key. */
export function quoted(key) {
  if (key.length <= KEY_SHOWN) return `“${key}”`;
  // Cut between characters, not between the two halves of one (an emoji's, say).
  const end = /[\uD800-\uDBFF]/.test(key[KEY_SHOWN - 1]) ? KEY_SHOWN - 1 : KEY_SHOWN;
  return `“${key.slice(0, end)}…” (${count(key.length)} characters)`;
}

/** A 64-bit or 32-bit hash value in hex. */
export function hex(value, digits) {
  return `0x${value.toString(16).padStart(digits, "0")}`;
}
