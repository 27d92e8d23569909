// The command line as typed, in bytes. Node reads its arguments as UTF-8 and
// puts U+FFFD for each byte that is not: a key or a file name typed in
// Latin-1 ("caf\xe9") reaches the program as "caf\uFFFD". Linux keeps the
// bytes in /proc/self/cmdline.
import { readFileSync } from "node:fs";
import { CliError } from "./args.js";
import { oneLine } from "./words.js";

/** The arguments whose bytes are not their text's UTF-8, by that text, in the order typed. */
export function argumentBytes(): Map<string, Buffer[]> {
  const byText = new Map<string, Buffer[]>();
  const args = process.argv.slice(2);
  let cmdline: Buffer;
  try {
    cmdline = readFileSync("/proc/self/cmdline");
  } catch {
    return byText;
  }
  const all: Buffer[] = [];
  for (let start = 0; start < cmdline.length; ) {
    const end = cmdline.indexOf(0, start);
    const stop = end < 0 ? cmdline.length : end;
    all.push(cmdline.subarray(start, stop));
    start = stop + 1;
  }
  const typed = all.slice(all.length - args.length);
  // The command line's last arguments are this script's: trusted only when each reads as Node read it.
  if (typed.length !== args.length || typed.some((bytes, i) => bytes.toString() !== args[i])) return byText;
  typed.forEach((bytes, i) => {
    if (bytes.equals(Buffer.from(args[i]))) return;
    byText.set(args[i], [...(byText.get(args[i]) ?? []), bytes]);
  });
  return byText;
}

/**
 * Refuses a file name typed in bytes that are not UTF-8: Node gives it as
 * another name, with U+FFFD in place of those bytes, so `build caf\xe9.txt`
 * said "no such file" of a file that exists, read "caf\uFFFD.txt" if there
 * was one, and `-o out\xe9.bloom` wrote, or replaced, "out\uFFFD.bloom".
 * `action` is "read" or "write"; `instead` says what the user can do.
 */
export function refuseNameNotUtf8(name: string, action: string, instead: string): void {
  if (!name.includes("\uFFFD")) return; // Node's mark of a byte that is not UTF-8: most names have none
  let typed: Buffer | undefined;
  for (const [text, bytes] of argumentBytes()) {
    // The name is an argument, or the value of one (--output=NAME): the bytes after its "=".
    if (text === name) typed = bytes[0];
    else if (text.startsWith("--") && text.endsWith(`=${name}`)) typed = bytes[0].subarray(bytes[0].indexOf(0x3d) + 1);
    if (typed !== undefined) break;
  }
  if (typed === undefined) return;
  throw new CliError(`cannot ${action} ${withBytesShown(typed)}: its name is not UTF-8, and Node reads the command line as UTF-8 (it would ${action} ${oneLine(name)}); ${instead}`);
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Bytes as text on one line: the UTF-8 in them as characters, every other byte as \xHH. */
function withBytesShown(bytes: Buffer): string {
  let text = "";
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i];
    const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
    let character: string | undefined;
    try {
      character = length > 0 && i + length <= bytes.length ? STRICT_UTF8.decode(bytes.subarray(i, i + length)) : undefined;
    } catch {
      character = undefined;
    }
    text += character ?? `\\x${lead.toString(16).padStart(2, "0")}`;
    i += character === undefined ? 1 : length;
  }
  return oneLine(text);
}
