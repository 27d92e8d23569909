// The built package as users get it: `import … from "bloomkit"` in plain Node,
// no init call; and the packed tarball installed into a fresh TypeScript app.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join, posix } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, packAndInstall, type Installed } from "./tarball.js";

const root = new URL("..", import.meta.url);

describe("package", () => {
  it("imports from \"bloomkit\" in Node and is usable at once", () => {
    const script = `
      import { BloomFilter, optimal } from "bloomkit";
      const filter = BloomFilter.create(1000, 0.01);
      filter.add("https://example.com/");
      console.log(JSON.stringify({ has: filter.has("https://example.com/"), absent: filter.has("nope"), m: optimal({ n: 10000, p: 0.001 }).m }));
    `;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
    expect(JSON.parse(output)).toEqual({ has: true, absent: false, m: 143_776 });
  });

  it("loads with require(\"bloomkit\") too: no top-level await, the core compiled synchronously", () => {
    const script = `
      const { BloomFilter, CountingBloomFilter } = require("bloomkit");
      const filter = BloomFilter.create(1000, 0.01).add("carol");
      const counting = CountingBloomFilter.create(1000, 0.01).add("carol").add("carol");
      console.log(JSON.stringify({ has: filter.has("carol"), absent: filter.has("dave"), count: counting.count("carol"), shown: require("node:util").inspect(filter) }));
    `;
    const output = execFileSync(process.execPath, ["-e", script], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    expect(JSON.parse(output)).toEqual({ has: true, absent: false, count: 2, shown: expect.stringMatching(/^BloomFilter \{bits: 9586, hashes: 7, size: 1, /) });
  });

  it("declares ESM, types first in exports, no side effects and a files list", () => {
    const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
    expect(pkg.type).toBe("module");
    expect(pkg.sideEffects).toBe(false);
    expect(Object.keys(pkg.exports["."])[0]).toBe("types");
    expect(pkg.files).toContain("dist");
  });

  it("has no fs or other Node built-in on the library's path", () => {
    const dist = new URL("dist/", root);
    for (const file of ["index.js", "wasm.js", "bloom-filter.js", "keys.js", "memory.js", "optimal.js", "errors.js"]) {
      expect(readFileSync(new URL(file, dist), "utf8"), file).not.toMatch(/from "node:|require\(|from "fs"/);
    }
  });
});

/** TypeScript's compiler from this repository's node_modules. */
function tsc(args: string[], cwd: string): string {
  const bin = join(REPO, "node_modules", "typescript", "bin", "tsc");
  try {
    return execFileSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    // tsc reports on stdout: show it, not just "exit code 2".
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc ${args.join(" ")} failed:\n${stdout}${stderr}`);
  }
}

describe("the packed tarball, installed as a user installs it", () => {
  let installed: Installed;
  let files: string[];
  let unpacked: string;
  let app: string;

  beforeAll(() => {
    installed = packAndInstall("bloomkit-tarball-");
    ({ files, unpacked, app } = installed);
  });

  afterAll(() => {
    if (installed) rmSync(installed.work, { recursive: true, force: true });
  });

  it("installs offline with nothing but itself: the library has no runtime dependencies", () => {
    const manifest = JSON.parse(readFileSync(join(app, "node_modules", "bloomkit", "package.json"), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(readdirSync(join(app, "node_modules")).filter((name) => !name.startsWith("."))).toEqual(["bloomkit"]);
  });

  it("type-checks in a default strict TypeScript config (no skipLibCheck, no @types/node, no extra lib), `using` included", () => {
    expect(tsc(["-p", "tsconfig.json"], app)).toBe("");
    expect(existsSync(join(app, "out", "index.js"))).toBe(true);
  });

  it("ships declarations that TypeScript 5.2, the oldest the README names, can read: no typed array with a type argument", () => {
    // Typed arrays took a type argument in TypeScript 5.7; before it, an app
    // without skipLibCheck fails on `Uint8Array<ArrayBuffer>` in our .d.ts
    // with "Type 'Uint8Array' is not generic" (checked with tsc 5.2.2).
    const declarations = files.filter((file) => file.endsWith(".d.ts"));
    expect(declarations.length).toBeGreaterThan(20);
    const generic = /\b(?:(?:Big)?(?:Int|Uint|Float)(?:8|16|32|64)(?:Clamped)?Array|ArrayBufferView|DataView)</g;
    const code = (file: string) => readFileSync(join(unpacked, "package", file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    const found = declarations.flatMap((file) => [...code(file).matchAll(generic)].map((match) => `${file}: ${match[0]}`));
    expect(found).toEqual([]);
  });

  it("type-checks in a Node config too: ES libs and @types/node, no DOM", () => {
    expect(tsc(["-p", "tsconfig.node.json", "--typeRoots", join(REPO, "node_modules", "@types")], app)).toBe("");
  });

  it("runs compiled: every filter answers right, saved in pieces and loaded back, and `using` disposes", () => {
    const output = execFileSync(process.execPath, [join(app, "out", "index.js")], { cwd: app, encoding: "utf8" });
    const { results, disposedByUsing } = JSON.parse(output);
    expect(results.map((result: { type: string }) => result.type)).toEqual(["BloomFilter", "SplitBlockBloomFilter", "CuckooFilter", "BinaryFuseFilter"]);
    for (const result of results) {
      expect(result, result.type).toMatchObject({ restoredType: result.type, missing: 0, missingAfterLoad: 0, sameAnswersAfterLoad: true });
      expect(result.pieces, result.type).toBeGreaterThan(1);
      expect(result.falsePositiveRate, result.type).toBeLessThan(0.02);
    }
    expect(disposedByUsing).toBe(true);
  });

  it("ships source maps whose sources resolve inside the tarball (each map carries its TypeScript)", () => {
    const shipped = new Set(files);
    const maps = files.filter((file) => file.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(20);
    for (const file of files.filter((name) => name.endsWith(".js"))) {
      const link = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(unpacked, "package", file), "utf8"))?.[1];
      expect(link && shipped.has(posix.join(posix.dirname(file), link)), `${file} links a shipped map`).toBe(true);
    }
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(unpacked, "package", file), "utf8"));
      map.sources.forEach((source: string, i: number) => {
        const resolved = posix.join(posix.dirname(file), map.sourceRoot ?? "", source);
        expect(typeof map.sourcesContent?.[i] === "string" || shipped.has(resolved), `${file}: ${source}`).toBe(true);
      });
    }
    // The content is the source as written.
    const bloom = JSON.parse(readFileSync(join(unpacked, "package", "dist", "bloom-filter.js.map"), "utf8"));
    expect(bloom.sources).toEqual(["../bindings/bloom-filter.ts"]);
    expect(bloom.sourcesContent[0]).toBe(readFileSync(join(REPO, "bindings", "bloom-filter.ts"), "utf8"));
  });
});
