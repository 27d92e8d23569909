// Inputs are opened and checked before any output is touched, so a missing,
// unreadable or wrong input stops the command while every output file is
// still as it was; and an output that is one of the inputs is refused.
import { closeSync, fstatSync, open, readFileSync, realpathSync, statSync, type BigIntStats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { CliError, UsageError, typedName, type Parsed } from "./args.js";
import { cannot } from "./os-errors.js";
import { oneLine } from "./words.js";
import { descriptorOf, holdsPipeEnd, targetOf } from "./atomic-output.js";
import { refuseNameNotUtf8 } from "./typed-arguments.js";

/** The name used for standard input and output, on the command line and in messages. */
export const STDIO = "-";

/** An input opened for reading: where it is, and which file it is. */
export interface Input {
  /** As the user gave it ("-" for standard input). */
  readonly path: string;
  readonly fd: number;
  /**
   * Bytes to read, for a regular file; for standard input redirected from
   * one, the bytes after where it is read from (known on Linux); undefined for
   * a pipe or a device.
   */
  readonly size: number | undefined;
  /** A regular file can be read again from the start. */
  readonly regular: boolean;
  /** Which file it is (undefined when standard input is closed). */
  readonly identity: BigIntStats | undefined;
}

/**
 * Opens an input and checks that it can be read as lines: not a directory.
 * The file is opened in libuv's thread pool: a named pipe's open waits there
 * for its writer while this thread stays on the event loop, where Ctrl-C and
 * SIGTERM are heard (their handler is JS).
 */
export async function openInput(path: string): Promise<Input> {
  if (path === "") throw new UsageError(`an input's file name is empty ("")`);
  refuseNameNotUtf8(path, "read", "rename it, or give it as standard input (- < FILE)");
  if (path === STDIO) {
    let identity: BigIntStats | undefined;
    try {
      identity = fstatSync(0, { bigint: true });
    } catch {
      identity = undefined; // standard input is closed: it reads as empty
    }
    // `< folder` opens the folder, whose reads fail in a way the stream took for an end: no lines, and an emptied output.
    if (identity?.isDirectory()) throw cannot("read", "standard input", { code: "EISDIR" });
    // Redirected from a file (`< urls.txt`), it is sized and read as a file is; it cannot be read again from the start.
    const offset = identity?.isFile() ? stdinOffset() : undefined;
    const size = offset === undefined ? undefined : Math.max(0, Number(identity!.size) - offset);
    return { path, fd: 0, size, regular: false, identity };
  }
  // Node's own pipe, read by its name, took its event loop's wake-ups: the read waited forever, deaf to Ctrl-C. Any
  // pipe this process can write (the shell's 3<> fifo too) would never end: its end comes when no writer is left.
  if (holdsPipeEnd(path, "write")) {
    throw new CliError(`cannot read ${oneLine(path)}: it is a pipe this process holds open for writing too (one of Node's own, or one the shell opened with <>), so its end would never come`);
  }
  let fd: number;
  try {
    fd = await new Promise<number>((resolve, reject) => open(path, "r", (error, fd) => (error ? reject(error) : resolve(fd))));
  } catch (error) {
    throw cannot("read", path, error);
  }
  const identity = fstatSync(fd, { bigint: true });
  if (identity.isDirectory()) {
    closeSync(fd);
    throw cannot("read", path, { code: "EISDIR" });
  }
  const regular = identity.isFile();
  return { path, fd, size: regular ? Number(identity.size) : undefined, regular, identity };
}

/** Where standard input is read from on, when it is a regular file: its offset, which Linux tells in /proc; undefined elsewhere. */
function stdinOffset(): number | undefined {
  try {
    const pos = /^pos:\s*(\d+)$/m.exec(readFileSync("/proc/self/fdinfo/0", "utf8"));
    return pos ? Number(pos[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** How an input is named in messages: its path as given, or "standard input". */
export function inputName(input: Input): string {
  // Escaped here, for every message that quotes it: summaries too, not only errors and progress lines.
  return input.path === STDIO ? "standard input" : oneLine(input.path);
}

/** True for standard input that is no file (a pipe, a terminal): streamed, of unknown length. Every other input is read as a file is. */
export function streamed(input: Input): boolean {
  return input.path === STDIO && input.size === undefined;
}

/** Closes an input (never standard input). */
export function closeInput(input: Input): void {
  if (input.fd !== 0) closeSync(input.fd);
}

/** The file an output would replace, if it is a regular file that exists (standard output: the file it is redirected to). */
function existingFile(output: string | undefined): BigIntStats | undefined {
  try {
    const stats = output === undefined || output === STDIO ? fstatSync(1, { bigint: true }) : statSync(output, { bigint: true });
    return stats.isFile() ? stats : undefined;
  } catch {
    return undefined; // a new file: it cannot be an input
  }
}

/** The pipe an output would write to, if it is one (a named pipe, or standard output's pipe). */
function existingPipe(output: string | undefined): BigIntStats | undefined {
  try {
    const stats = output === undefined || output === STDIO ? fstatSync(1, { bigint: true }) : statSync(output, { bigint: true });
    return stats.isFIFO() ? stats : undefined;
  } catch {
    return undefined;
  }
}

const sameFile = (a: BigIntStats, b: BigIntStats) => a.dev === b.dev && a.ino === b.ino;

/**
 * Where a new output goes, its links followed as writing it follows them (a
 * link to a file not there yet is that file) and its folder's: two names of
 * one new file give one place.
 */
function placeOf(output: string): string {
  const path = resolve(targetOf(output));
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path; // a folder that does not exist: writing there fails with its own message
  }
}

/** True for an output that is standard output: none given, or -. */
const toStdout = (output: string | undefined): output is undefined | typeof STDIO => output === undefined || output === STDIO;
/** How messages name an output. */
const outputName = (output: string | undefined) => (toStdout(output) ? "standard output" : output);

/** The refusal of two outputs that are one file, named as given. */
const twoOutputs = (first: string, second: string) =>
  `${first === second ? `${second} is given for two outputs` : `${first} and ${second} are the same file`}: give each output its own file`;

/**
 * Refuses, as wrong usage and before any input is opened, an output named
 * by an empty string, and one output named twice in the command line (`-o x
 * --repeats x`, `-o x --repeats ./x`, or standard output twice). `options`
 * are the output options (output, repeats), each named in a message as it
 * was typed; one not given is standard output. Two names that are one file
 * through a link are found by refuseOutputsThatAreInputs.
 */
export function checkOutputNames(parsed: Pick<Parsed, "options" | "typed">, options: readonly string[]): void {
  const named = new Map<string, string>();
  for (const option of options) {
    const output = parsed.options.get(option) as string | undefined;
    if (output === "") throw new UsageError(`an output's file name is empty (${typedName(parsed, option)} "")`);
    if (output !== undefined) refuseNameNotUtf8(output, "write", option === "output" ? "write to standard output and redirect it (-o - > FILE)" : "give it another name");
    const name = outputName(output);
    const place = toStdout(output) ? STDIO : resolve(output);
    const other = named.get(place);
    if (other !== undefined) throw new UsageError(twoOutputs(other, name));
    named.set(place, name);
  }
}

/**
 * Refuses, before anything is written, an output that is one of the inputs
 * (same device and inode, whatever the path says) or two outputs that are one
 * file: writing it would destroy what is being read. A command that reads its
 * inputs while it writes (`streaming`: all but those that load whole filters
 * first) is refused a named pipe that is also an input too: it would read its
 * own output back, and, holding the pipe open to write, never see the end of
 * its input (`dedup fifo -o fifo` waited for ever).
 */
export function refuseOutputsThatAreInputs(inputs: readonly Input[], outputs: readonly (string | undefined)[], streaming = true): void {
  const taken: { name: string; place: string; identity: BigIntStats | undefined }[] = [];
  for (const output of outputs) {
    const name = outputName(output);
    const identity = existingFile(output);
    const pipe = streaming ? existingPipe(output) : undefined;
    for (const input of inputs) {
      const what = inputName(input);
      const is = what === name ? "is also an input" : `is the same file as ${input.path === STDIO ? what : `the input ${what}`}`;
      if (identity && input.identity?.isFile() && sameFile(input.identity, identity)) {
        throw new CliError(`${name} ${is}: writing it would destroy what is being read; write to another file`);
      }
      if (pipe && input.identity?.isFIFO() && sameFile(input.identity, pipe)) {
        throw new CliError(`${name} ${is}: a named pipe written while it is read would feed this command its own output, and its input would never end; write to another file`);
      }
    }
    // /dev/stdout and /dev/fd/1 are standard output as it is open (a pipe, a terminal), whatever their links lead to.
    const place = toStdout(output) || descriptorOf(output) === 1 ? STDIO : placeOf(output);
    // Standard output given twice is refused whatever it is (two outputs would mix on a pipe).
    const twice = taken.find((other) => (identity && other.identity && sameFile(other.identity, identity)) || other.place === place);
    if (twice) throw new CliError(twoOutputs(twice.name, name));
    taken.push({ name, place, identity });
  }
}
