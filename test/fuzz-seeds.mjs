// Many seeds of test/fuzz-harness.mjs over the built package (npm run build first), outside vitest:
//   node test/fuzz-seeds.mjs FROM TO [NAME-PART] [STEPS=40] [BIG=1] [SWEEP=0]
// runs seeds FROM..TO-1 of every configuration whose name contains NAME-PART; BIG=1 adds batches past
// 16,384 keys and 1 MiB and keys past 1 MiB; SWEEP=1 also runs runBigSweep (every route, big batches) per seed.
import * as lib from "../dist/index.js";
import { configs, runBigSweep, runFuseSeed, runSeed } from "./fuzz-harness.mjs";

const [from = "1", to = "5", only = "", steps = "40", big = "1", sweep = "0"] = process.argv.slice(2);
const chosen = configs(lib).filter((config) => !only || config.name.includes(only));
let failures = 0;
for (let seed = +from; seed < +to; seed++) {
  for (const config of chosen) {
    const log = [];
    try {
      await runSeed(lib, config, seed, { steps: +steps, big: big === "1", log });
      if (sweep === "1" && config.kind !== "cuckoo") runBigSweep(lib, config, seed);
    } catch (error) {
      failures++;
      console.log(`FAIL ${config.name} seed ${seed}: ${error.constructor.name}: ${error.message}\n  last steps: ${log.slice(-4).join(" | ")}`);
    }
  }
  if (!only || "fuse".includes(only)) {
    try {
      await runFuseSeed(lib, seed, { big: big === "1" });
    } catch (error) {
      failures++;
      console.log(`FAIL fuse seed ${seed}: ${error.message}`);
    }
  }
  console.log(`seed ${seed} done`);
}
console.log(`failures: ${failures}`);
process.exitCode = failures ? 1 : 0;
