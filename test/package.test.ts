// The built package as users get it: `import … from "bloomkit"` in plain Node, no init call.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

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
