// The CLI's words, as functions: operating-system failures in plain words and
// numbers in sentences. The commands themselves are run in cli-faults.test.ts.
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getSystemErrorMap } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { cannot, inWords } from "../cli/os-errors.js";
import { count, fmt, formatBytes, oneLine } from "../cli/words.js";
import { formatBytes as libraryBytes } from "../bindings/errors.js";

const dir = mkdtempSync(join(tmpdir(), "bloomkit-words-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error a real file operation throws. */
function thrownBy(operation: () => unknown): unknown {
  try {
    operation();
  } catch (error) {
    return error;
  }
  throw new Error("the operation did not fail");
}

describe("inWords: a failed file operation's reason", () => {
  it("words the errors of real operations", () => {
    expect(inWords(thrownBy(() => openSync(join(dir, "missing.txt"), "r")))).toBe("no such file or directory");
    expect(inWords(thrownBy(() => readFileSync(dir)))).toBe("is a directory");
    expect(inWords(thrownBy(() => openSync(join(dir, "missing", "deeper.txt"), "w")))).toBe("no such file or directory");
  });

  it.each([
    ["EACCES", "permission denied"],
    ["EPERM", "operation not permitted"],
    ["EROFS", "read-only file system"],
    ["ENOSPC", "no space left on the device"],
    ["ENOTDIR", "a part of the path is not a directory"],
    ["EMFILE", "too many open files"],
  ])("%s is %j", (code, words) => {
    expect(inWords({ code, message: `${code}: something, open '/x'` })).toBe(words);
  });

  it("never shows a code: every errno the system knows comes out as words", () => {
    const codes = [...getSystemErrorMap()];
    expect(codes.length).toBeGreaterThan(50);
    for (const [errno, [code]] of codes) {
      const words = inWords({ code, errno, message: `${code}: raw, open '/some/path'` });
      expect(words, code).not.toMatch(/\bE[A-Z0-9]{2,}\b/);
      expect(words, code).not.toContain("/some/path");
      expect(words.length, code).toBeGreaterThan(2);
    }
  });

  it("keeps the words of a message without a code, dropping Node's code and path", () => {
    expect(inWords(new Error("EWEIRD: the disk sighed, write '/tmp/x'"))).toBe("the disk sighed");
    expect(inWords(new Error("plain words"))).toBe("plain words");
    expect(inWords("a string")).toBe("a string");
  });

  it("cannot() makes the one-line CliError with the path", () => {
    const error = cannot("read", "in.txt", { code: "EISDIR" });
    expect(error.name).toBe("CliError");
    expect(error.message).toBe("cannot read in.txt: is a directory");
  });
});

describe("fmt: thousands separators without Intl", () => {
  it("groups as Intl's en-US does, at every magnitude and sign, rounding as count does", () => {
    // Intl is the independent reference: fmt groups by hand only to spare the CLI ICU's start-up.
    const values = [0, 1, -1, 0.5, 1.5, -1.5, 999, 1000, -1000, 999_999, 1_000_000, 2 ** 53 - 1, -(2 ** 53), 1e20, 9.99e20, 1e21, -1e21, 1e300];
    let x = 0x9e3779b9;
    for (let i = 0; i < 2000; i++) {
      // A seeded spread of sizes: a random mantissa times 10^0 … 10^22, half of them negative.
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      const sign = x & 1 ? -1 : 1;
      values.push(sign * (x / 2 ** 32) * 10 ** (i % 23));
    }
    for (const n of values) expect(fmt(n), String(n)).toBe(Math.round(n).toLocaleString("en-US").replace(/^-0$/, "0"));
  });
});

describe("count and formatBytes", () => {
  it.each([
    [0, "line", "0 lines"],
    [1, "line", "1 line"],
    [2, "line", "2 lines"],
    [1234567, "bucket", "1,234,567 buckets"],
    [1, "repeated line", "1 repeated line"],
  ])("count(%i, %j) is %j", (n, noun, text) => {
    expect(count(n, noun)).toBe(text);
  });

  it("takes an irregular plural", () => {
    expect(count(2, "index", "indices")).toBe("2 indices");
    expect(count(1, "index", "indices")).toBe("1 index");
  });

  it.each([
    [1, "1 byte"],
    [32, "32 bytes"],
    [1023, "1,023 bytes"],
    [1024, "1.00 KiB"],
    [17972, "17.55 KiB"],
    [1.5 * 2 ** 20, "1.50 MiB"],
    [2 ** 30, "1.00 GiB"],
    [3 * 2 ** 40, "3.00 TiB"],
    [2 ** 50, "1024.00 TiB"],
    [1e30, "9.09e+17 TiB"],
    // Just under a unit: its own hundredths would read 1024.00 of the smaller one (calc --m 8388600: 1,048,575 bytes).
    [1_048_575, "1.00 MiB"],
    [2 ** 20 - 6, "1023.99 KiB"],
    [2 ** 30 - 2 ** 10, "1.00 GiB"],
    [2 ** 40 - 2 ** 20, "1.00 TiB"],
  ])("formatBytes(%d) is %j, never 0.00 of a larger unit nor 1024.00 of a smaller one", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it("bloomkit's own formatBytes (in errors) reads as the command line's, past the bytes", () => {
    for (const bytes of [1024, 17972, 1_048_575, 2 ** 20 - 6, 2 ** 20 - 5, 2 ** 30 - 2 ** 10, 2 ** 40 - 2 ** 20, 3 * 2 ** 40]) expect(libraryBytes(bytes)).toBe(formatBytes(bytes));
  });
});

describe("oneLine: a name or value on one line of a terminal", () => {
  it("shows newlines, carriage returns and terminal controls escaped, and leaves tabs and other text as they are", () => {
    expect(oneLine("b\n\x1b[2J.txt")).toBe("b\\n\\x1b[2J.txt");
    expect(oneLine("a\r\x00\x07\x08\x7f\x9b")).toBe("a\\r\\x00\\x07\\x08\\x7f\\x9b");
    expect(oneLine("tab\there, café, 日本.txt")).toBe("tab\there, café, 日本.txt");
  });
});
