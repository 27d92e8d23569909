// Works around a Node deadlock at exit (nodejs/node#54918 and the reports
// like it, seen here under Node 20): when the event loop ends, the main
// thread waits for V8's background compile jobs, and a job that needs the
// old generation collected waits for the main thread. The process then
// sleeps for ever with its work done; two of this session's test runs hung
// so (main thread in NodePlatform::DrainTasks, a TurboFan job in
// CollectionBarrier::AwaitCollectionBackground).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Collects the heap once the command is done, while the event loop still runs:
 * a job's allocation then finds room under the limit the collection sets
 * (megabytes; a job allocates kilobytes) and never asks for a collection the
 * waiting main thread cannot make. It lowers the chance of the hang; only a
 * fix in Node removes it. `--expose-gc` is set for this one call, as Node's
 * v8 documentation shows; it costs a few milliseconds on the CLI's small heap.
 */
export function collectBeforeExit(): void {
  try {
    setFlagsFromString("--expose-gc");
    (runInNewContext("gc") as () => void)();
  } catch {
    // A runtime without the flag: exit as before.
  }
}
