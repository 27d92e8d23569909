// The page in Firefox (Debian's firefox-esr, driven by puppeteer-core over
// WebDriver BiDi; Playwright needs a patched Firefox). A smaller pass than the
// Chromium test: the page comes up, Add marks the key's positions, p's field
// bounds hold in Firefox's number parsing, and Query of an absent key says so. .ci/run installs firefox-esr when it is missing.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { PRINTED_URL, SERVE } from "./page-helpers.js";

const SEARCHED = process.env.FIREFOX_PATH ? [process.env.FIREFOX_PATH] : ["/usr/bin/firefox-esr", "/usr/bin/firefox"];
const FIREFOX = SEARCHED.find((path) => existsSync(path));
// Outside CI a machine without Firefox skips these, and says so; in CI a missing browser is a failure.
const MISSING = FIREFOX || process.env.CI ? undefined : `Firefox not found (looked for ${SEARCHED.join(", ")}; install firefox-esr or set FIREFOX_PATH)`;

if (MISSING) {
  describe("the page in Firefox", () => {
    it(`is skipped: ${MISSING}`, (context) => {
      process.stderr.write(`test/page-firefox.test.ts skipped: ${MISSING}\n`);
      context.skip(MISSING);
    });
  });
}

(MISSING ? describe.skip : describe)("the page in Firefox", () => {
  let server: ChildProcess;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    server = spawn(process.execPath, [SERVE, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout!.on("data", (chunk: Buffer) => {
        const match = PRINTED_URL.exec(chunk.toString());
        if (match) resolve(match[0]);
      });
      server.on("exit", (code) => reject(new Error(`the page server exited with ${code}`)));
    });
    browser = await puppeteer.launch({ browser: "firefox", executablePath: FIREFOX, headless: true });
    page = await browser.newPage();
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(url);
    await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
  });

  it("comes up without errors and Add marks the key's positions", async () => {
    expect(errors).toEqual([]);
    await page.$eval("#key", (input) => ((input as HTMLInputElement).value = "hello"));
    await page.click("#add");
    await page.waitForFunction(() => document.getElementById("verdict")?.textContent?.startsWith("added"));
    const states = await page.$$eval("#positions li", (items) => items.map((item) => (item as HTMLElement).dataset.state));
    expect(states).toEqual(Array(7).fill("set"));
  });

  it("p's field takes the rates the page takes: its min and max are the numbers next to 0 and 1", async () => {
    const judged = await page.$eval("#p", (element) => {
      const input = element as HTMLInputElement;
      const verdicts: Record<string, boolean> = {};
      for (const value of ["0", input.min, "1e-300", "0.01", "0.99", input.max, "1"]) {
        input.value = value;
        verdicts[value] = input.validity.valid;
      }
      input.value = "0.01";
      return { min: input.min, max: input.max, verdicts };
    });
    expect(judged.min).toBe(String(Number.MIN_VALUE));
    expect(judged.max).toBe(String(1 - Number.EPSILON / 2));
    expect(judged.verdicts).toEqual({ 0: false, [judged.min]: true, "1e-300": true, "0.01": true, "0.99": true, [judged.max]: true, 1: false });
  });

  it("Query of an absent key says definitely not present", async () => {
    await page.$eval("#key", (input) => ((input as HTMLInputElement).value = "definitely-not-here-42"));
    await page.click("#query");
    await page.waitForFunction(() => document.getElementById("verdict")?.textContent === "definitely not present");
    expect(await page.$eval("#verdict", (element) => element.getAttribute("role"))).toBe("status");
  });
});
