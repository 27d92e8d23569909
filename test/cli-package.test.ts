// The package's own papers: the licence package.json names, where the project
// lives, and a type declaration for the embedded wasm that does not repeat it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const ROOT = new URL("..", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8"));

describe("the package", () => {
  it("ships the MIT licence that package.json names", () => {
    expect(manifest.license).toBe("MIT");
    const licence = readFileSync(new URL("LICENSE", ROOT), "utf8");
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the bloomkit authors\n/);
    expect(licence).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
    expect(manifest.files).toContain("LICENSE");
  });

  it("says where the project lives", () => {
    expect(manifest.repository).toEqual({ type: "git", url: "git+https://github.com/bloomkit/bloomkit.git" });
    expect(manifest.homepage).toBe("https://github.com/bloomkit/bloomkit#readme");
    expect(manifest.bugs).toEqual({ url: "https://github.com/bloomkit/bloomkit/issues" });
  });

  it("declares the embedded wasm as a string, not as its base64 literal (two modules, some 180 kB)", () => {
    const declaration = readFileSync(new URL("dist/wasm-bytes.generated.d.ts", ROOT), "utf8");
    expect(declaration).toMatch(/^export declare const WASM_BASE64: string;\n/);
    expect(declaration.length).toBeLessThan(200);
    // The value itself is still all there, in the JavaScript.
    const code = readFileSync(new URL("dist/wasm-bytes.generated.js", ROOT), "utf8");
    expect(/"([A-Za-z0-9+/=]+)"/.exec(code)?.[1].length).toBeGreaterThan(10_000);
  });
});
