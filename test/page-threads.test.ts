// A filter shared between a page and a Web Worker, in real headless Chromium
// (driven by playwright-core, as test/page.test.ts) and Firefox (puppeteer-core,
// as test/page-firefox.test.ts): the page served by
// `npm start` (cross-origin isolated by its COOP/COEP headers) creates a
// shared filter, posts share() to a module worker that adds keys, and then
// sees them; the worker sees the page's keys too. A page of the same origin
// served without those headers gets the clear error instead. The page code
// imports the library through eval: vitest would rewrite a plain import().
import { type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import puppeteer from "puppeteer-core";
import { CHROMIUM, CHROMIUM_ARGS, serve } from "./page-helpers.js";

const MISSING = CHROMIUM || process.env.CI ? undefined : "Chromium not found (looked for /usr/bin/chromium, /usr/bin/chromium-browser; install chromium or set CHROMIUM_PATH)";
const FIREFOX = (process.env.FIREFOX_PATH ? [process.env.FIREFOX_PATH] : ["/usr/bin/firefox-esr", "/usr/bin/firefox"]).find((path) => existsSync(path));
const NO_FIREFOX = FIREFOX || process.env.CI ? undefined : "Firefox not found (install firefox-esr or set FIREFOX_PATH)";

/**
 * Runs in the page: creates a shared filter of `type`, posts share() to a
 * module worker (from a blob, importing the library by absolute URL) that
 * adds keys, and reports what each side saw.
 */
async function shareWithWorker(type: string) {
  const lib = (await (0, eval)('import("/dist/index.js")')) as unknown as Record<string, { create(n: number, p: number, o: object): any }>;
  const filter = lib[type].create(100_000, 0.01, { shared: true });
  filter.addMany(["from the page 1", "from the page 2"]);
  // A module worker from a blob, importing the library by absolute URL.
  const code = `
    import * as lib from ${JSON.stringify(`${location.origin}/dist/index.js`)};
    onmessage = ({ data }) => {
      const filter = lib[data.type].fromShared(data.handle);
      const before = Array.from(filter.hasMany(["from the page 1", "from the page 2"]));
      filter.addInts(Uint32Array.from({ length: 50000 }, (_, i) => i));
      filter.addMany(["from the worker"]);
      postMessage({ before, isolated: crossOriginIsolated });
      filter.dispose();
    };`;
  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })), { type: "module" });
  const reply = await new Promise<{ before: number[]; isolated: boolean }>((resolve, reject) => {
    worker.onmessage = ({ data }) => resolve(data);
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage({ type, handle: filter.share() });
  });
  worker.terminate();
  const ints = Uint32Array.from({ length: 50000 }, (_, i) => i);
  const absent = ints.length - filter.hasInts(ints).reduce((sum: number, answer: number) => sum + answer, 0);
  const result = { ...reply, pageIsolated: crossOriginIsolated, absent, worker: filter.has("from the worker"), neverAdded: filter.has("never added"), size: filter.size };
  filter.dispose();
  return result;
}

type Seen = Awaited<ReturnType<typeof shareWithWorker>>;

/** What the page and the worker must have seen. */
function checkShared(seen: Seen): void {
  expect(seen.pageIsolated).toBe(true);
  expect(seen.isolated).toBe(true);
  expect(seen.before).toEqual([1, 1]);
  expect(seen.absent).toBe(0);
  expect(seen.worker).toBe(true);
  expect(seen.neverAdded).toBe(false);
  // The worker's adds count in the page's size: about 50,003 keys (a few may have found their bits set already).
  expect(seen.size).toBeGreaterThan(49_000);
  expect(seen.size).toBeLessThanOrEqual(50_003);
}

describe.skipIf(MISSING !== undefined)("a filter shared with a Web Worker", () => {
  let server: ChildProcess;
  let url: string;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    ({ server, url } = await serve(["--port", "0"]));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("requestfailed", (request) => errors.push(`failed: ${request.url()}`));
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
    expect(errors).toEqual([]);
  });

  it.each(["BloomFilter", "SplitBlockBloomFilter"])("%s: the page sees the worker's keys and the worker the page's, live", async (type) => {
    await page.goto(url);
    const seen = await page.evaluate(shareWithWorker, type);
    checkShared(seen);
  });

  it("without cross-origin isolation, { shared: true } throws a clear error and private filters still work", async () => {
    // The same origin, a page served without COOP/COEP.
    await page.route(`${url}plain.html`, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>plain</title>" }));
    await page.goto(`${url}plain.html`);
    const seen = await page.evaluate(async () => {
      const { BloomFilter } = (await (0, eval)('import("/dist/index.js")')) as unknown as { BloomFilter: any };
      let message = "";
      try {
        BloomFilter.create(1000, 0.01, { shared: true });
      } catch (error) {
        message = `${(error as Error).name}: ${(error as Error).message}`;
      }
      const filter = BloomFilter.create(1000, 0.01);
      filter.add("key");
      return { isolated: crossOriginIsolated, message, works: filter.has("key") };
    });
    expect(seen.isolated).toBe(false);
    expect(seen.message).toMatch(/^TypeError: \{ shared: true \} needs SharedArrayBuffer, which this page does not get: serve it cross-origin isolated/);
    expect(seen.works).toBe(true);
  });
});

describe.skipIf(NO_FIREFOX !== undefined)("a filter shared with a Web Worker in Firefox", () => {
  let server: ChildProcess;
  let url: string;
  let browser: Awaited<ReturnType<typeof puppeteer.launch>>;

  beforeAll(async () => {
    ({ server, url } = await serve(["--port", "0"]));
    browser = await puppeteer.launch({ browser: "firefox", executablePath: FIREFOX, headless: true });
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
  });

  it.each(["BloomFilter", "SplitBlockBloomFilter"])("%s: the page sees the worker's keys and the worker the page's, live", async (type) => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(url);
    checkShared(await page.evaluate(shareWithWorker, type));
    expect(errors).toEqual([]);
    await page.close();
  });
});
