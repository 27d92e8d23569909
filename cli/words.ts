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
  if (bytes < KIB) return count(bytes, "byte");
  if (bytes < MIB) return `${(bytes / KIB).toFixed(2)} KiB`;
  if (bytes < GIB) return `${(bytes / MIB).toFixed(2)} MiB`;
  if (bytes < TIB) return `${(bytes / GIB).toFixed(2)} GiB`;
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
  return text.replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f]/g, (c) => (c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
}
