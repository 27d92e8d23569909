// Work to undo when the command stops early: temporary files and folders are
// removed on an error, on Ctrl-C (SIGINT), SIGTERM and SIGHUP, and at exit.
// Only SIGKILL cannot be caught; the outputs are safe even then, because they
// are written under a temporary name and renamed only when complete.

/** Signals that stop the command after its temporary files are removed. */
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

const pending = new Set<() => void>();
let installed = false;

/** Runs every pending cleanup once, newest first; a cleanup that fails does not stop the others. */
export function runCleanups(): void {
  for (const cleanup of [...pending].reverse()) {
    pending.delete(cleanup);
    try {
      cleanup();
    } catch {
      // Removing a temporary file that is already gone: nothing left to do.
    }
  }
}

/** Cleans up, then stops with the signal's own exit status (130 for Ctrl-C), as if it had not been caught. */
function onSignal(signal: NodeJS.Signals): void {
  runCleanups();
  for (const name of SIGNALS) process.removeListener(name, onSignal);
  process.kill(process.pid, signal);
}

/**
 * Catches the signals from now on. main() calls it before any command runs: a
 * signal that came between the creation of a temporary file and the
 * registration of its cleanup would otherwise stop the process by its default
 * action and leave the file (seen once in CI: intersect --exact's folder).
 */
export function watchSignals(): void {
  if (installed) return;
  installed = true;
  for (const name of SIGNALS) process.on(name, onSignal);
  process.on("exit", runCleanups);
}

/** Registers work to run if the command stops before it is done; returns the function that unregisters it. */
export function onCleanup(cleanup: () => void): () => void {
  watchSignals();
  pending.add(cleanup);
  return () => {
    pending.delete(cleanup);
  };
}
