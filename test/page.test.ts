// The page in real headless Chromium (Debian's, driven by playwright-core):
// add a key and see its positions turn green, query an absent key, and the
// other filter types. .ci/run installs chromium when it is missing.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));
const ARTIFACTS = new URL("./.artifacts/", import.meta.url).pathname;
// Outside CI a machine without Chromium skips these; in CI a missing browser is a failure.
const suite = CHROMIUM || process.env.CI ? describe : describe.skip;

/** Reads the canvas pixel under a position's centre. */
async function pixelAt(page: Page, x: number, y: number): Promise<number[]> {
  return page.evaluate(([px, py]) => Array.from((document.getElementById("bits") as HTMLCanvasElement).getContext("2d")!.getImageData(px, py, 1, 1).data.slice(0, 3)), [x, y]);
}

const isGreen = ([r, g, b]: number[]) => g > 120 && r < 80 && b < 100;

suite("the page", () => {
  let server: ChildProcess;
  let browser: Browser;
  let page: Page;
  let url: string;

  beforeAll(async () => {
    server = spawn(process.execPath, [new URL("../web/serve.mjs", import.meta.url).pathname, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
    url = await new Promise<string>((resolve, reject) => {
      server.stdout!.on("data", (chunk: Buffer) => {
        const match = /http:\/\/localhost:\d+\//.exec(chunk.toString());
        if (match) resolve(match[0]);
      });
      server.on("exit", (code) => reject(new Error(`the page server exited with ${code}`)));
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(url);
    await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    expect(errors).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
  });

  it("serves only the page, the library build and the wasm loader", async () => {
    const status = async (path: string) => (await fetch(new URL(path, url))).status;
    expect(await status("/dist/index.js")).toBe(200);
    expect(await status("/node_modules/@assemblyscript/loader/index.js")).toBe(200);
    for (const outside of ["/package.json", "/dist/..%2Fpackage.json", "/node_modules/@assemblyscript/loader/..%2F..%2Fvitest/package.json", "/web/..%2F.ci/run"]) {
      expect(await status(outside), outside).toBe(404);
    }
  });

  it("Add turns the key's positions green on the bit array", async () => {
    await page.getByLabel("Key", { exact: true }).fill("hello");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("added");
    const positions = page.locator("#positions li");
    const count = await positions.count();
    expect(count).toBe(7); // k for the default n = 100, p = 0.01
    for (let i = 0; i < count; i++) {
      const item = positions.nth(i);
      expect(await item.getAttribute("data-state")).toBe("set");
      const color = await item.evaluate((element) => getComputedStyle(element).backgroundColor);
      expect(color).toBe("rgb(30, 158, 62)");
      const pixel = await pixelAt(page, Number(await item.getAttribute("data-x")), Number(await item.getAttribute("data-y")));
      expect(isGreen(pixel), `pixel ${pixel} at position ${await item.getAttribute("data-index")}`).toBe(true);
    }
    await page.screenshot({ path: `${ARTIFACTS}page-added.png`, fullPage: true });
  });

  it("Query of an absent key says definitely not present, with red positions", async () => {
    await page.getByLabel("Key", { exact: true }).fill("definitely-not-here-42");
    await page.getByRole("button", { name: "Query" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("definitely not present");
    const unset = page.locator('#positions li[data-state="unset"]');
    expect(await unset.count()).toBeGreaterThan(0);
    expect(await unset.first().evaluate((element) => getComputedStyle(element).backgroundColor)).toBe("rgb(221, 51, 51)");
    const pixel = await pixelAt(page, Number(await unset.first().getAttribute("data-x")), Number(await unset.first().getAttribute("data-y")));
    expect(isGreen(pixel)).toBe(false);
    await page.getByLabel("Key", { exact: true }).fill("hello");
    await page.getByRole("button", { name: "Query" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("probably present");
    await page.screenshot({ path: `${ARTIFACTS}page.png`, fullPage: true });
  });

  it("bulk keys update the statistics, and a filled filter shows false positives", async () => {
    await page.getByLabel("Random keys").fill("300");
    await page.getByRole("button", { name: "Add random keys" }).click();
    await expect.poll(() => page.locator('dd[data-stat="n"]').textContent()).toBe("301");
    const measured = await page.locator('dd[data-stat="measured FPR"]').textContent();
    expect(measured).toMatch(/^\d+(\.\d+)?% on 10,000 random keys$/);
    // 301 keys in a filter for 100: most absent keys now look present; the page says which are false positives.
    let falsePositive = false;
    for (let i = 0; i < 50 && !falsePositive; i++) {
      await page.getByLabel("Key", { exact: true }).fill(`never-added-${i}`);
      await page.getByRole("button", { name: "Query" }).click();
      falsePositive = (await page.getByRole("status").textContent()) === "false positive";
    }
    expect(falsePositive).toBe(true);
  });

  it("counting filters show counters and remove keys", async () => {
    await page.getByLabel("Filter type").selectOption("counting");
    expect(await page.getByRole("button", { name: "Remove" }).isVisible()).toBe(true);
    await page.getByLabel("Key", { exact: true }).fill("counted");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByRole("button", { name: "Remove" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("removed");
    await page.getByRole("button", { name: "Query" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("probably present");
    const counters = await page.evaluate(() => Array.from((window as unknown as { bloomkitPage: { state: { counters: Uint8Array } } }).bloomkitPage.state.counters).filter((c) => c > 0));
    expect(counters.length).toBe(7);
    expect(new Set(counters)).toEqual(new Set([1]));
  });

  it("cuckoo filters show buckets and fingerprints", async () => {
    await page.getByLabel("Filter type").selectOption("cuckoo");
    await page.getByLabel("Key", { exact: true }).fill("fingerprinted");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    const marks = page.locator('#positions li[data-state="set"]');
    expect(await marks.count()).toBe(1); // the slot holding the key's fingerprint, in one of its two buckets
    await page.getByRole("button", { name: "Remove" }).click();
    await page.getByRole("button", { name: "Query" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("definitely not present");
  });

  it("draws a filter of 1,000,000 bits on one canvas", async () => {
    await page.getByLabel("Filter type").selectOption("standard");
    await page.getByLabel("m and k directly").check();
    await page.getByLabel("m (bits)").fill("1000000");
    await page.getByLabel("k (hashes)").fill("7");
    await page.getByLabel("Zoom").fill("1");
    await page.getByRole("button", { name: "New filter" }).click();
    await page.getByLabel("Random keys").fill("50000");
    await page.getByRole("button", { name: "Add random keys" }).click();
    await expect.poll(() => page.locator('dd[data-stat="n"]').textContent(), { timeout: 30_000 }).toBe("50000");
    const size = await page.evaluate(() => {
      const canvas = document.getElementById("bits") as HTMLCanvasElement;
      return canvas.width * canvas.height;
    });
    expect(size).toBeGreaterThanOrEqual(1_000_000);
    expect(await page.locator("#bits").count()).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}page-large.png` });
  });
});
