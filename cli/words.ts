// Numbers in sentences: "1 line" but "2 lines", and sizes in the unit that
// shows them (a 64-byte filter is "64 bytes", not "0.00 MiB").

/**
 * Thousands separators, grouped by hand: the first toLocaleString of a process
 * starts ICU, 10-33 ms here, which every dedup paid for its summary (a
 * twentieth of its run on the crawl log). Past 10^21, where String() turns to
 * exponent form, Intl still writes the digits.
 */
export function fmt(n: number): string {
  const whole = Math.round(n);
  if (!(Math.abs(whole) < 1e21)) return whole.toLocaleString("en-US");
  const digits = String(Math.abs(whole));
  let grouped = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = grouped.length; i < digits.length; i += 3) grouped += `,${digits.slice(i, i + 3)}`;
  return whole < 0 ? `-${grouped}` : grouped;
}

/** A count and its noun, singular for exactly one: "1 line", "2 lines", "1,024 buckets". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${fmt(n)} ${Math.round(n) === 1 ? singular : plural}`;
}

const KIB = 1024;
const MIB = KIB ** 2;
const GIB = KIB ** 3;
const TIB = KIB ** 4;

/** A byte size in bytes, KiB, MiB, GiB or TiB, whichever keeps it readable (calc's sizes reach 1024 TiB). */
export function formatBytes(bytes: number): string {
  // Each unit up to its last hundredth: 1023.996 KiB printed as "1024.00 KiB", not "1.00 MiB".
  const below = (unit: number) => bytes < unit * 1023.995;
  if (bytes < KIB) return count(bytes, "byte");
  if (below(KIB)) return `${(bytes / KIB).toFixed(2)} KiB`;
  if (below(MIB)) return `${(bytes / MIB).toFixed(2)} MiB`;
  if (below(GIB)) return `${(bytes / GIB).toFixed(2)} GiB`;
  // A million TiB and more (only typed sizes get there: --memory 1e30): not eighteen digits before the point.
  return bytes < 1e6 * TIB ? `${(bytes / TIB).toFixed(2)} TiB` : `${(bytes / TIB).toPrecision(3)} TiB`;
}

/**
 * Text on one line of a terminal, as a file name or value a message quotes:
 * a newline or carriage return is shown as \n or \r, and any other control
 * character (an escape that would clear the screen or move the cursor, a
 * backspace, DEL, the C1 controls) as \xHH, so a name cannot break the line
 * or rewrite what the user sees. A tab stays: it moves along the line only.
 */
export function oneLine(text: string): string {
  return text.replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f]/g, (c) => shown(c.charCodeAt(0)));
}

/**
 * oneLine for text as bytes that may not be UTF-8 (a key typed in Latin-1):
 * the same characters escaped, the C1 controls where UTF-8 encodes them,
 * every other byte kept as it is.
 */
export function oneLineBytes(bytes: Uint8Array): Uint8Array {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
  // Read as Latin-1, each byte is one character: U+0080–U+009F in UTF-8 is \xc2 then \x80–\x9f.
  const escaped = text.replace(/[\x00-\x08\x0a-\x1f\x7f]|\xc2[\x80-\x9f]/g, (c) => shown(c.charCodeAt(c.length - 1)));
  return escaped === text ? bytes : Buffer.from(escaped, "latin1");
}

/** How oneLine shows the control character of code `code`. */
const shown = (code: number) => (code === 10 ? "\\n" : code === 13 ? "\\r" : `\\x${code.toString(16).padStart(2, "0")}`);
