// Shared by the benchmarks: machine description, progress on a TTY, Markdown tables.
import os from "node:os";

/** What the results were measured on. */
export function machine() {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString().slice(0, 10),
    cpu: cpus[0]?.model.trim() ?? "unknown CPU",
    cores: cpus.length,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
  };
}

const started = performance.now();

/** A progress line on stderr, with the seconds since the start, only when stderr is a terminal. */
export function progress(message) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K[${Math.round((performance.now() - started) / 1000)} s] ${message}`);
}

/** A Markdown table; numbers right-aligned. */
export function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  // Numbers, "a / b" pairs of them (one per Node) and "—" (not measured) are right-aligned.
  const numeric = header.map((_, i) => rows.every((r) => /^(—|[\d.,]+[×%]?( \/ [\d.,]+[×%]?)*)?$/.test(String(r[i]))));
  const cell = (value, i) => (numeric[i] ? String(value).padStart(widths[i]) : String(value).padEnd(widths[i]));
  const line = (cells) => `| ${cells.map(cell).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (numeric[i] ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|")}|`;
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[2K");
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** "3 runs: 0.64–0.71 s", or "1 run" for a command timed once. */
export const wallRange = (r) => (r.runs > 1 ? `${r.runs} runs: ${r.fastest.toFixed(2)}–${r.slowest.toFixed(2)} s` : "1 run");
