// The installed package bundled by esbuild for each module format a user may
// pick (ESM, CommonJS, an IIFE on a global), each bundle then run on its own:
// the wasm core is inlined and instantiated synchronously, so no format needs
// top-level await, a loader or a file beside it.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { build, type Format } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packAndInstall, type Installed } from "./tarball.js";

let installed: Installed;

beforeAll(() => {
  installed = packAndInstall("bloomkit-bundles-");
});

afterAll(() => {
  if (installed) rmSync(installed.work, { recursive: true, force: true });
});

/** Bundles the fixture's entry (minified, as shipped to users) and returns the bundle's path. */
async function bundle(format: Format, platform: "node" | "browser"): Promise<string> {
  const outfile = join(installed.app, `bundle.${format}.${format === "esm" ? "mjs" : format === "cjs" ? "cjs" : "js"}`);
  const result = await build({
    entryPoints: [join(installed.app, "bundle-entry.js")],
    absWorkingDir: installed.app,
    bundle: true,
    minify: true,
    format,
    platform,
    target: "es2022",
    globalName: format === "iife" ? "bloomkitDemo" : undefined,
    outfile,
    logLevel: "silent",
  });
  expect(result.errors).toEqual([]);
  expect(result.warnings).toEqual([]);
  return outfile;
}

/** What every bundle's run() must say: no key missing, rates near 1 %, answers kept by a save and load. */
function expectRightAnswers(output: Record<string, Record<string, unknown>>): void {
  expect(Object.keys(output)).toEqual(["bloom", "cuckoo"]);
  for (const [type, result] of Object.entries(output)) {
    expect(result, type).toMatchObject({ missing: 0, single: [true, true], sameAfterLoad: true, loadedAsSameClass: true });
    expect(result.falsePositiveRate, type).toBeLessThan(0.02);
  }
  // 20,000 absent keys at p = 1 %: a Bloom filter that answered no to everything would show 0.
  expect(output.bloom.falsePositiveRate).toBeGreaterThan(0.002);
}

describe("bundles of the installed package (esbuild)", () => {
  it("ESM: the bundle runs in Node as a module", async () => {
    const file = await bundle("esm", "node");
    const script = `import(${JSON.stringify(file)}).then((m) => console.log(JSON.stringify(m.run())))`;
    expectRightAnswers(JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })));
  });

  it("CommonJS: the bundle runs in Node through require()", async () => {
    const file = await bundle("cjs", "node");
    const script = `console.log(JSON.stringify(require(${JSON.stringify(file)}).run()))`;
    expectRightAnswers(JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })));
  });

  it("IIFE: the browser bundle runs in a bare JS context with only a browser's atob, btoa and TextEncoder, on its global name", async () => {
    const file = await bundle("iife", "browser");
    const code = readFileSync(file, "utf8");
    // Nothing left to load at run time (an IIFE with top-level await would not have built at all).
    expect(/\brequire\(|\bimport\(/.exec(code)?.[0]).toBeUndefined();
    const sandbox: Record<string, unknown> = { atob, btoa, TextEncoder };
    runInNewContext(code, sandbox);
    const demo = sandbox.bloomkitDemo as { run(): Record<string, Record<string, unknown>> };
    expect(typeof demo.run).toBe("function");
    // Round-trip through JSON: the result's objects come from the other context.
    expectRightAnswers(JSON.parse(JSON.stringify(demo.run())));
  });
});
