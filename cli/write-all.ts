// Writing a whole buffer to a descriptor from synchronous code (worker
// threads, short texts). A pipe that another process left non-blocking (Node
// does, once its process.stdout exists) refuses a write when full, with
// EAGAIN, instead of waiting for the reader; there is no synchronous poll()
// to wait on, so the writer sleeps and tries again.
import { writeSync } from "node:fs";

/** The first sleep after a full pipe: a reader keeping up drains 64 KiB well within it. */
export const FIRST_WAIT_MS = 1;
/**
 * The longest sleep, reached by doubling while the pipe stays full. Retrying
 * every millisecond cost 9% of a core while `bloomkit query … | slow-reader`
 * waited on a stalled reader; at 32 ms the wait costs under 1%, and a reader
 * that comes back waits at most that long for the next bytes.
 */
const LONGEST_WAIT_MS = 32;

/** The sleep after one of `wait` ms found the pipe still full: twice as long, up to LONGEST_WAIT_MS. */
export const nextWait = (wait: number) => Math.min(2 * wait, LONGEST_WAIT_MS);

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of `bytes` to `fd`, waiting while a non-blocking pipe is full; other errors are thrown as they come. */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let wait = FIRST_WAIT_MS;
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
      wait = FIRST_WAIT_MS;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(SLEEPER, 0, 0, wait);
      wait = nextWait(wait);
    }
  }
}
