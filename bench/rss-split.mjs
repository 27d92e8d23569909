// What a process's peak memory is made of, on Linux: GNU time gives the peak
// resident set alone, which counts both the process's own (anonymous) memory
// and the pages of the files it runs from (the Node binary's code and data,
// shared with every other process running it). Run as a script:
//   node bench/rss-split.mjs <command> [args…]
// runs the command and prints, as JSON, the resident set at its largest
// sample and its two parts then, sampled every 2 ms from /proc/<pid>/status.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

/** RssAnon and RssFile (KiB) of `pid`, with VmRSS, or undefined once it is gone. */
function sample(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+)`, "m"))?.[1]);
    return { rss: kib("VmRSS"), anon: kib("RssAnon"), file: kib("RssFile") };
  } catch {
    return undefined;
  }
}

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["ignore", "ignore", "inherit"] });
let peak = { rss: 0, anon: 0, file: 0 };
const timer = setInterval(() => {
  const now = sample(child.pid);
  if (now && now.rss > peak.rss) peak = now;
}, 2);
child.on("exit", (code) => {
  clearInterval(timer);
  if (code !== 0) {
    process.stderr.write(`${command} exited with ${code}\n`);
    process.exit(1);
  }
  // KiB to MB of 10^6 bytes, the unit of GNU time's peak in bench/cli.mjs.
  const mb = (kib) => (kib * 1024) / 1e6;
  console.log(JSON.stringify({ peakMB: mb(peak.rss), anonymousMB: mb(peak.anon), fileMB: mb(peak.file) }));
});
