// What the operating system said, in words a user reads ("no such file or
// directory"), never its code ("ENOENT"): the one place the CLI turns a
// failed file operation into the end of its error line.
import { getSystemErrorMap } from "node:util";
import { CliError } from "./args.js";

/** The reasons users meet most, worded for people rather than programmers. */
const REASONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EISDIR: "is a directory",
  ENOTDIR: "a part of the path is not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  ENAMETOOLONG: "file name too long",
  ELOOP: "too many symbolic links",
  EEXIST: "already exists",
  EIO: "input/output error",
  EBUSY: "busy",
  ETXTBSY: "busy",
  EXDEV: "on another file system",
  EPIPE: "the reader went away",
  ENXIO: "no such device",
  ENODEV: "no such device",
};

/** The reason an operation failed, in words: a known reason, the system's own sentence for the code, or the message without codes. */
export function inWords(error: unknown): string {
  const { code, errno, message } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code === "string" && code in REASONS) return REASONS[code];
  if (typeof errno === "number") {
    const known = getSystemErrorMap().get(errno);
    if (known) return known[1];
  }
  const text = typeof message === "string" ? message : String(error);
  // Node's own messages read "ECODE: words, syscall 'path'": keep the words.
  return text.replace(/^E[A-Z0-9]+: /, "").replace(/, \w+ '.*'$/, "");
}

/**
 * What a failed command says of `error`: the message of one worded for users
 * (a CliError, or the library's RangeError or TypeError); a system error in
 * words with its path, never its code; else its message.
 */
export function failureInWords(error: unknown): string {
  if (error instanceof CliError || error instanceof RangeError || error instanceof TypeError) return error.message;
  const { code, path } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code === "string" && /^E[A-Z0-9]+$/.test(code)) return `${path ? `${path}: ` : ""}${inWords(error)}`;
  return String((error as Error)?.message ?? error);
}

/** A one-line error for a failed file operation: "cannot read PATH: no such file or directory". */
export function cannot(action: string, path: string, error: unknown): CliError {
  return new CliError(`cannot ${action} ${path}: ${inWords(error)}`);
}
