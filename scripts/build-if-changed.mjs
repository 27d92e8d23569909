// `npm start`, `npm test`, the benchmarks and the demo build first. A build
// takes about 30 s (two wasm compilations and two tsc runs), and after
// `npm install`, whose prepare script has just built, `npm start` built it all
// again. This builds only when something the build reads has changed since the
// last one: a hash of the sources, the configurations and the lockfile, taken
// as every `npm run build` begins (`--begin`: a source edited while it runs is
// built next time) and kept in build/ once it has ended (`--stamp`), so that it
// is not shipped in the package's dist/. `npm run build` always builds.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
/** What the build reads: the wasm sources and config, the TypeScript of the library and the command line, and what installed the compilers. */
const INPUTS = ["assembly", "bindings", "cli", "scripts/embed-wasm.mjs", "asconfig.json", "tsconfig.json", "package.json", "package-lock.json"];
/** What the build writes, all of which must be there to skip it. */
const OUTPUTS = ["build/bloomkit.wasm", "build/bloomkit-shared.wasm", "bindings/wasm-bytes.generated.ts", "dist/index.js", "dist/cli/main.js"];
const STAMP = join(root, "build", ".build-inputs");
/** The hash of what a build that is running began from. */
const BEGUN = join(root, "build", ".build-inputs.begun");

/** What the build runs (asc, tsc) and the types the command line compiles against: npm install brings them. */
const TOOLS = ["assemblyscript", "typescript", "@types/node"];

/**
 * Stops with one line when a build tool is missing: `npm start` or `npm test`
 * in a clone before `npm install` said only "sh: 1: asc: not found".
 */
function checkTools() {
  const require = createRequire(join(root, "package.json"));
  const missing = TOOLS.filter((name) => {
    try {
      require.resolve(`${name}/package.json`);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    process.stderr.write(`bloomkit: cannot build: the build tools (${missing.join(", ")}) are not installed; run npm install in ${root.replace(/[\\/]$/, "")} first\n`);
    process.exit(1);
  }
}

/** Every file under `path`, in a fixed order. */
function files(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

/** A hash of every input file's path and bytes (the generated bindings are made from assembly/, hashed already). */
function inputsDigest() {
  const hash = createHash("sha256");
  for (const file of INPUTS.flatMap((input) => files(join(root, input))).filter((file) => !file.endsWith(".generated.ts"))) {
    hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

if (process.argv.includes("--begin")) {
  checkTools();
  // The start of `npm run build`: what it is built from. Any earlier stamp no longer says what is built.
  mkdirSync(dirname(STAMP), { recursive: true });
  rmSync(STAMP, { force: true });
  writeFileSync(BEGUN, inputsDigest() + "\n");
} else if (process.argv.includes("--stamp")) {
  // The end of `npm run build`: what it began from (the build steps run alone, what there is now).
  writeFileSync(STAMP, existsSync(BEGUN) ? readFileSync(BEGUN, "utf8") : inputsDigest() + "\n");
  rmSync(BEGUN, { force: true });
} else {
  const built = OUTPUTS.every((output) => existsSync(join(root, output))) && existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === inputsDigest();
  if (!built) {
    checkTools();
    const npm = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
    process.exit(npm.status ?? 1);
  }
}
