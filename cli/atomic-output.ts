// An output file that is never half-written: the command writes a temporary
// file in the output's own folder (so the rename cannot cross file systems),
// flushes it to disk and renames it over the output only when it is complete.
// An error, Ctrl-C or SIGTERM removes the temporary file; SIGKILL or a power
// cut leaves at most a stray hidden ".name.….tmp" and the old output intact.
import { randomBytes } from "node:crypto";
import { accessSync, close, closeSync, constants, existsSync, fchmodSync, fdatasync, fstatSync, fsyncSync, lstatSync, openSync, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, statSync, unlinkSync, write, writeSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { CliError, UsageError } from "./args.js";
import { onCleanup } from "./cleanup.js";
import { cannot } from "./os-errors.js";
import { oneLine } from "./words.js";

/**
 * An output is flushed to disk along the way every this many bytes
 * (AtomicFile.flushAheadOf): it must be flushed before it is renamed into
 * place anyway, and doing it while the run goes on keeps most of the final
 * fsync off its end.
 */
export const FLUSH_AHEAD_BYTES = 32 << 20;

/**
 * Most bytes written in the background at once (writeBehind): past them a
 * write is made in the caller's thread. Measured on dedup of the crawl log,
 * its 384 MB of writes cost the main thread 123–152 ms of a 0.9–1.1 s run.
 */
export const WRITE_BEHIND_BYTES = 4 << 20;

/** Permissions of a new output before the umask, as for any file a program creates. */
const NEW_FILE_MODE = 0o666;

/** The longest name of one file, in bytes (NAME_MAX on Linux and macOS). */
const NAME_MAX_BYTES = 255;

/**
 * The hidden temporary file's name beside output `name`: ".NAME.PID-RANDOM.tmp",
 * with NAME cut (at a whole character) so that it fits in NAME_MAX_BYTES: an
 * output named with 240 bytes or more, a name any program may write, was
 * refused as "file name too long", the temporary's name being the longer.
 */
function temporaryName(name: string): string {
  const suffix = `.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  let room = NAME_MAX_BYTES - 1 - Buffer.byteLength(suffix); // 1: the leading "."
  let kept = "";
  for (const character of name) {
    room -= Buffer.byteLength(character);
    if (room < 0) break;
    kept += character;
  }
  return `.${kept}${suffix}`;
}

/** Most links followed from an output's name: as many as Linux follows. */
const MAX_LINKS = 40;

/**
 * The file the path names, following symbolic links as the kernel does, so a
 * link to the output stays a link; a link to a file that does not exist yet
 * names that file (as the shell's `>` creates it), instead of being replaced
 * by the output. A link's text is read from its folder's real path: "../x"
 * behind a linked folder is the kernel's "../x", not the path's.
 */
export function targetOf(path: string): string {
  let target = path;
  for (let links = 0; links < MAX_LINKS; links++) {
    let link: string;
    try {
      if (!lstatSync(target).isSymbolicLink()) return target;
      link = readlinkSync(target);
    } catch {
      return target; // a new file: the last name reached
    }
    try {
      return realpathSync(target); // a link to a file that exists
    } catch {
      // A link to a file not there yet (or a loop): follow it by hand.
    }
    try {
      target = resolve(realpathSync(dirname(target)), link);
    } catch {
      return target; // its folder is gone: writing there fails with its own message
    }
  }
  throw cannot("write", path, { code: "ELOOP" });
}

/** /dev/fd/N, /proc/self/fd/N and the like: a descriptor this process has open (capture 1: its number, 2: the pid). */
const DESCRIPTOR_NAME = /^\/(?:dev|proc\/(self|thread-self|\d+))\/fd\/(\d+)$/;

/** The descriptor number of this process an output's name gives (/dev/fd/N, /proc/self/fd/N, /dev/stdout, or a link to one), open or not; undefined for any other name. */
function descriptorNamed(path: string): number | undefined {
  let name = resolve(path);
  for (let links = 0; links < MAX_LINKS; links++) {
    const match = DESCRIPTOR_NAME.exec(name);
    if (match) {
      const [, pid, fd] = match;
      if (pid !== undefined && pid !== "self" && pid !== "thread-self" && Number(pid) !== process.pid) return undefined;
      return Number(fd);
    }
    try {
      if (!lstatSync(name).isSymbolicLink()) return undefined;
      name = resolve(dirname(name), readlinkSync(name));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The descriptor of this process that an output's name leads to (/dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/self/fd/N, or a link to one), or undefined.
 * Such an output is written where the descriptor stands: reopened it would be
 * truncated, and a file renamed over it would replace whatever the shell
 * opened there (`>> log` lost the log).
 */
export function descriptorOf(path: string): number | undefined {
  const number = descriptorNamed(path);
  if (number === undefined) return undefined;
  try {
    fstatSync(number);
    // Past standard error, only a file the shell opened (3>> log): Node's own descriptors (its event
    // loop's, a pipe to wake it) are no output, and they name no file.
    if (number > 2 && !readlinkSync(`/proc/self/fd/${number}`).startsWith("/")) return undefined;
    return number;
  } catch {
    return undefined; // not open here, or no /proc to tell the shell's from Node's own (noSuchDescriptor says which)
  }
}

/**
 * The refusal of an output named by a descriptor that is no output here: one
 * not open (the shell opens it: `9> FILE`), or one of Node's own. Such a name
 * was taken for a file in /dev/fd, and the message spoke of a temporary file
 * that folder does not take. A socket is no descriptor of Node's own: it is
 * one the program that started bloomkit passed (Node's spawn() makes its
 * 'pipe' descriptors sockets), which the name cannot reopen. Without /proc
 * (macOS, the BSDs) an open one past standard error cannot be told from
 * Node's own: it is refused as such, not called Node's.
 */
function noSuchDescriptor(path: string, number: number): CliError {
  let socket: boolean | undefined;
  try {
    socket = fstatSync(number).isSocket();
  } catch {
    socket = undefined; // not open
  }
  const what =
    socket === undefined
      ? `is not open (the shell opens it for the output: ${number}> FILE)`
      : socket
        ? "is a socket, which bloomkit cannot open by name: pass it as standard output and write there (-o -)"
        : existsSync("/proc/self/fd")
          ? "is one of Node's own, not one the shell opened"
          : "cannot be told from one of Node's own here, with no /proc/self/fd to look in: name the file itself";
  return new CliError(`cannot write ${oneLine(path)}: descriptor ${number} ${what}`);
}

/** The output's permissions if it exists as a regular file; "special" for a device, pipe or socket. */
function existing(path: string): number | "special" | undefined {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return undefined;
  }
  if (stats.isDirectory()) throw cannot("write", path, { code: "EISDIR" });
  return stats.isFile() ? stats.mode & 0o7777 : "special";
}

/** Best effort: make the rename itself survive a crash of the machine. */
function syncFolder(folder: string): void {
  try {
    const fd = openSync(folder, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems cannot sync a folder; the data itself is already on disk.
  }
}

/** True when `path` is a folder (through links), false when it is anything else or nothing. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A file being written under a temporary name. Write to `fd`, then `commit()`
 * to put it in place, or `abort()` to leave the old file untouched. A device
 * such as /dev/null or a named pipe is written directly: there is no old
 * content to protect, and renaming over it would replace the device.
 */
export class AtomicFile {
  /** The output as the user named it. */
  readonly path: string;
  readonly fd: number;
  readonly #target: string;
  readonly #temporary: string | undefined;
  readonly #unregister: () => void;
  #open = true;
  /** An open descriptor the output named (descriptorOf): written, never closed here. */
  #borrowed = false;
  /**
   * A second descriptor of the temporary file, for the writes and flushes in
   * libuv's thread pool: they may still run when `fd` is closed, and it is
   * closed only once none does, so its number is never another file's while one uses it.
   */
  #background: number | undefined;
  /** Bytes of the file written or being written: a temporary file is written by position, so writes in the background may end in any order. */
  #position = 0;
  /** What #position (or, for a file handed over, flushAheadOf's count) was when the last flush started. */
  #flushedAt = 0;
  #flushing = false;
  /** Bytes being written in the background, and the callers waiting for them to end. */
  #behind = 0;
  #settled: (() => void)[] = [];
  /** The first error of a background write: every later call reports it. */
  #failure: unknown;

  constructor(path: string) {
    this.path = path;
    // Refused now, not at the rename after the whole run: an empty name, and a name that ends in "/" (a folder's).
    if (path === "") throw new UsageError("an output's file name is empty");
    if (path.endsWith("/")) throw isFolder(path) ? cannot("write", path, { code: "EISDIR" }) : new CliError(`cannot write ${path}: a file's name cannot end in "/", which names a folder`);
    const descriptor = descriptorOf(path);
    if (descriptor !== undefined) {
      this.fd = descriptor;
      this.#borrowed = true;
      this.#target = path;
      this.#temporary = undefined;
      this.#unregister = () => {};
      return;
    }
    const named = descriptorNamed(path);
    if (named !== undefined) throw noSuchDescriptor(path, named);
    this.#target = targetOf(path);
    const mode = existing(this.#target);
    if (mode === "special") {
      try {
        this.fd = openSync(this.#target, "w");
      } catch (error) {
        throw cannot("write", path, error);
      }
      this.#temporary = undefined;
      this.#unregister = () => {};
      return;
    }
    const temporary = join(dirname(this.#target), temporaryName(basename(this.#target)));
    try {
      this.fd = openSync(temporary, "wx", NEW_FILE_MODE);
    } catch (error) {
      // The folder is there, yet a new file in it is "no such file" (/proc, /sys): say so, not that the output is missing.
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && isFolder(dirname(this.#target))) {
        throw new CliError(`cannot write ${path}: ${dirname(this.#target)} does not take new files (the output is written as a new file beside it, then renamed)`);
      }
      throw cannot("write", path, error);
    }
    this.#temporary = temporary;
    this.#unregister = onCleanup(() => this.abort());
    try {
      this.#background = openSync(temporary, "r+"); // before the file takes the old one's permissions, which may forbid it
    } catch {
      // Then everything is written and flushed in the caller's thread.
    }
    if (mode !== undefined) {
      try {
        fchmodSync(this.fd, mode); // the replaced file keeps its permissions
      } catch {
        // Not the owner of the old file: the new one gets the usual permissions.
      }
    }
  }

  /** True when the output is written under a temporary name (flushed to disk and renamed by commit); false for a device or FIFO. */
  get temporary(): boolean {
    return this.#temporary !== undefined;
  }

  /** True when nothing has been written: another thread may take `fd` over and write at its offset. */
  get untouched(): boolean {
    return this.#position === 0;
  }

  /** Writes all of `bytes` (after what writeBehind has taken, for a temporary file). */
  write(bytes: Uint8Array): void {
    this.#check();
    // A device or FIFO has no positions; a temporary file is written at the end of what it was given.
    const position = this.#temporary === undefined ? null : this.#position;
    this.#position += bytes.length;
    this.flushAheadOf(this.#position);
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(this.fd, bytes, at, bytes.length - at, position === null ? null : position + at);
    } catch (error) {
      this.abort();
      throw cannot("write", this.path, error);
    }
  }

  /**
   * Writes `bytes` after what it was given before, in libuv's thread pool,
   * and hands them to `release` when they are written; false, writing
   * nothing, when WRITE_BEHIND_BYTES are being written already or the output
   * is not a temporary file (write then). `bytes` must not change until released.
   */
  writeBehind(bytes: Uint8Array, release: (bytes: Uint8Array) => void): boolean {
    this.#check();
    const fd = this.#background;
    if (fd === undefined || this.#behind + bytes.length > WRITE_BEHIND_BYTES) return false;
    let position = this.#position;
    this.#position += bytes.length;
    this.flushAheadOf(this.#position);
    this.#behind += bytes.length;
    let rest = bytes;
    const written = (error: NodeJS.ErrnoException | null, count: number) => {
      if (!error && count < rest.length) {
        // A short write (the disk filling up): the rest, after it.
        rest = rest.subarray(count);
        position += count;
        write(fd, rest, 0, rest.length, position, written);
        return;
      }
      this.#failure ??= error ?? undefined;
      this.#behind -= bytes.length;
      release(bytes);
      this.#backgroundIdle();
    };
    write(fd, rest, 0, rest.length, position, written);
    return true;
  }

  /** Resolves when every background write has ended; rejects, with the output removed, when one failed. */
  async settle(): Promise<void> {
    if (this.#behind > 0) await new Promise<void>((resolve) => this.#settled.push(resolve));
    this.#check();
  }

  /** After background work: wakes settle()'s callers once no write runs, and closes the background descriptor once nothing runs on it and the file is done with. */
  #backgroundIdle(): void {
    if (this.#behind === 0) for (const resolve of this.#settled.splice(0)) resolve();
    if (this.#open || this.#behind > 0 || this.#flushing || this.#background === undefined) return;
    const fd = this.#background;
    this.#background = undefined;
    close(fd, () => {});
  }

  /** Throws, with the output removed, the failure of a background write. */
  #check(): void {
    if (this.#failure === undefined) return;
    this.abort();
    throw cannot("write", this.path, this.#failure);
  }

  /**
   * Flushes what is written so far to disk in the background (libuv's thread
   * pool) each time `bytes` has grown by FLUSH_AHEAD_BYTES since the last
   * flush began, unless one still runs: `bytes` is what this file was given
   * (write and writeBehind call this), or, for a file handed over to other
   * threads, how much of the input they have written the output of. commit()
   * flushes the file before it renames it anyway; flushing along the way keeps
   * most of that wait off the end of a run (measured: the final fsync of
   * dedup's 384 MB output took 122 ms of a 1.08 s run). A failure here is left
   * for commit()'s fsync to report.
   */
  flushAheadOf(bytes: number): void {
    if (this.#background === undefined || this.#flushing || !this.#open || bytes - this.#flushedAt < FLUSH_AHEAD_BYTES) return;
    this.#flushedAt = bytes;
    this.#flushing = true;
    fdatasync(this.#background, () => {
      this.#flushing = false;
      this.#backgroundIdle();
    });
  }

  /**
   * Flushes the file to disk, so that commit() is left only its rename: a
   * command with two outputs syncs both before it renames either. A failure
   * removes the file, and the output stays as it was.
   */
  sync(): void {
    if (!this.#open) return;
    if (this.#behind > 0) throw new Error(`${this.path}: sync() while ${this.#behind} bytes are being written; settle() first`);
    this.#check();
    if (this.#temporary === undefined) return; // a device: nothing to flush
    try {
      fsyncSync(this.fd);
    } catch (error) {
      this.abort();
      throw cannot("write", this.path, error);
    }
  }

  /** Flushes the file to disk (sync) and puts it in place of the output; settle() first when writeBehind was used. */
  commit(): void {
    if (!this.#open) return;
    this.sync();
    try {
      if (!this.#borrowed) closeSync(this.fd);
      this.#open = false;
      this.#backgroundIdle();
      if (this.#temporary !== undefined) renameSync(this.#temporary, this.#target);
    } catch (error) {
      this.abort();
      throw cannot("write", this.path, error);
    }
    this.#unregister();
    if (this.#temporary !== undefined) syncFolder(dirname(this.#target));
  }

  /** Removes the temporary file; the output stays as it was. */
  abort(): void {
    this.#unregister();
    if (this.#open) {
      this.#open = false;
      try {
        if (!this.#borrowed) closeSync(this.fd);
      } catch {
        // Already closed by a failed commit.
      }
    }
    this.#backgroundIdle();
    if (this.#temporary === undefined) return;
    try {
      unlinkSync(this.#temporary);
    } catch {
      // Renamed already, or removed by a cleanup that ran first.
    }
  }
}

/** Fails now, in words, if the output could not be written later: for commands that write only at the end of a long run. */
export function checkWritable(path: string): void {
  // A named pipe is only looked at: opening it waits for its reader, and closing it again would end that
  // reader's input with nothing, leaving the real write waiting forever for a reader that is gone.
  if (isNamedPipe(path)) {
    // A descriptor the shell opened on it (3<> fifo, whose read-write end is no sign of Node's own) is written as Output writes it.
    if (descriptorOf(path) === undefined) refuseOwnPipe(path);
    return checkAccess(path);
  }
  new AtomicFile(path).abort();
}

/**
 * Refuses a pipe this process reads itself: /dev/fd/N naming one of Node's
 * own, which wake its event loop (both their ends are here), or a named pipe
 * the shell also opened for reading (`-o fifo 3< fifo`), whose output would
 * come back to this process. The shell gives a command only the end it writes
 * (`-o >(gzip > x.gz)`, `3>&1`). Opened by its name, Node's pipe took the
 * output: dedup's lines were lost with exit 0, and a filter file read as
 * wake-ups crashed Node (a segmentation fault).
 */
export function refuseOwnPipe(path: string): void {
  if (holdsPipeEnd(path, "read")) {
    throw new CliError(`cannot write ${oneLine(path)}: it is a pipe this process reads itself (one of Node's own, or one the shell opened with <), not an output the shell opened`);
  }
}

/**
 * True when `path` is a pipe of which this process holds, past standard
 * error, a descriptor that can `end` it (read, or write): both ends of Node's
 * own pipes are here, where the shell gives a command one end only.
 */
export function holdsPipeEnd(path: string, end: "read" | "write"): boolean {
  let pipe;
  let fds: string[];
  try {
    pipe = statSync(path);
    fds = pipe.isFIFO() ? readdirSync("/proc/self/fd") : [];
  } catch {
    return false; // no pipe, or no /proc to look in
  }
  // The one access mode that cannot do `end`: a writing end is refused for reading, a reading one for writing.
  const other = end === "read" ? constants.O_WRONLY : constants.O_RDONLY;
  // Past standard error: standard input may be the named pipe itself (`merge a - -o fifo < fifo` reads it, then writes it).
  for (const fd of fds.map(Number).filter((fd) => fd > 2)) {
    try {
      const held = fstatSync(fd);
      if (held.dev !== pipe.dev || held.ino !== pipe.ino) continue;
      // The access mode, the low two bits of the octal flags: O_RDONLY (0), O_WRONLY (1) or O_RDWR (2).
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags && (parseInt(flags[1], 8) & 3) !== other) return true;
    } catch {
      // A descriptor closed meanwhile (readdir's own): not the pipe.
    }
  }
  return false;
}

/** True when `path` is a named pipe (through links). */
export function isNamedPipe(path: string): boolean {
  try {
    return statSync(path).isFIFO();
  } catch {
    return false;
  }
}

/** Fails in words when this process may not write `path`. */
function checkAccess(path: string): void {
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    throw cannot("write", path, error);
  }
}
