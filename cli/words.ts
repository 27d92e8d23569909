// Numbers in sentences: "1 line" but "2 lines", and sizes in the unit that
// shows them (a 64-byte filter is "64 bytes", not "0.00 MiB").

/** Thousands separators. */
export const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

/** A count and its noun, singular for exactly one: "1 line", "2 lines", "1,024 buckets". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${fmt(n)} ${Math.round(n) === 1 ? singular : plural}`;
}

const KIB = 1024;
const MIB = KIB ** 2;
const GIB = KIB ** 3;

/** A byte size in bytes, KiB, MiB or GiB, whichever keeps it readable. */
export function formatBytes(bytes: number): string {
  if (bytes < KIB) return count(bytes, "byte");
  if (bytes < MIB) return `${(bytes / KIB).toFixed(2)} KiB`;
  if (bytes < GIB) return `${(bytes / MIB).toFixed(2)} MiB`;
  return `${(bytes / GIB).toFixed(2)} GiB`;
}
