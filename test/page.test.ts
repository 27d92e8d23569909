// The page in real headless Chromium (Debian's, driven by playwright-core):
// a key's positions on the drawn cells, verdicts, the counting and cuckoo
// views, a 1,000,000-bit filter at the smallest and largest zoom, and narrow
// screens. Pixels are read back from the canvas, so "drawn" means drawn.
// .ci/run installs chromium when it is missing.
import { type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, serve } from "./page-helpers.js";
import { indicesOf } from "./reference-indices.js";
import { BloomFilter } from "../dist/index.js";

const ARTIFACTS = new URL("./.artifacts/", import.meta.url).pathname;
// Outside CI a machine without Chromium skips these, and says so; in CI a missing browser is a failure.
const MISSING = CHROMIUM || process.env.CI ? undefined : "Chromium not found (looked for /usr/bin/chromium, /usr/bin/chromium-browser; install chromium or set CHROMIUM_PATH)";
if (MISSING) {
  describe("the page", () => {
    it(`is skipped: ${MISSING}`, (context) => {
      process.stderr.write(`test/page.test.ts skipped: ${MISSING}\n`);
      context.skip(MISSING);
    });
  });
}

type Rgb = [number, number, number];
const isGreen = ([r, g, b]: Rgb) => g > 120 && r < 80 && b < 100;
const isGrey = ([r, g, b]: Rgb) => r > 200 && g > 200 && b > 200 && Math.max(r, g, b) - Math.min(r, g, b) < 20;

/** The page's test hook (window.bloomkitPage). */
interface PageHook {
  state: { type: string; grid: { slotWidth: number }; bits?: Uint8Array; counters?: Uint8Array; slots?: ArrayLike<number>; filter: { locate(key: string): { fingerprint: number; buckets: [number, number] } } };
  reveal(index: number): { x: number; y: number; left: number; top: number; width: number; height: number };
}

/** Scrolls cell `index` into view and reads the canvas pixel at its centre. */
async function pixelOf(page: Page, index: number): Promise<Rgb> {
  return page.evaluate((i) => {
    const { x, y } = (window as unknown as { bloomkitPage: PageHook }).bloomkitPage.reveal(i);
    const canvas = document.getElementById("bits") as HTMLCanvasElement;
    return Array.from(canvas.getContext("2d")!.getImageData(Math.floor(x), Math.floor(y), 1, 1).data.slice(0, 3)) as Rgb;
  }, index);
}

/** Counts of green, grey and other pixels on the whole view canvas. */
async function canvasColors(page: Page): Promise<{ green: number; grey: number; total: number }> {
  return page.evaluate(() => {
    const canvas = document.getElementById("bits") as HTMLCanvasElement;
    const data = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
    let green = 0;
    let grey = 0;
    for (let at = 0; at < data.length; at += 4) {
      const [r, g, b] = [data[at], data[at + 1], data[at + 2]];
      if (g > 120 && r < 80 && b < 100) green++;
      else if (r > 200 && g > 200 && b > 200 && r < 245) grey++;
    }
    return { green, grey, total: data.length / 4 };
  });
}

/** Makes a filter of `type` sized "m and k directly". */
async function makeDirectly(page: Page, type: "standard" | "counting", m: number, k: number) {
  await page.getByLabel("Filter type").selectOption(type);
  await page.getByLabel("m and k directly").check();
  await page.getByLabel(type === "counting" ? "m (counters)" : "m (bits)").fill(String(m));
  await page.getByLabel("k (hashes)").fill(String(k));
  await page.getByRole("button", { name: "New filter" }).click();
}

async function press(page: Page, key: string, button: "Add" | "Query" | "Remove") {
  await page.getByLabel("Key", { exact: true }).fill(key);
  await page.getByRole("button", { name: button, exact: true }).click();
}

const status = (page: Page) => page.getByRole("status").textContent();

/** What the controls say about the filter, beside the filter in use. */
function described(page: Page) {
  return page.evaluate(() => {
    const { state } = (window as unknown as { bloomkitPage: { state: { type: string; filter: { hash: string } } } }).bloomkitPage;
    const value = (id: string) => (document.getElementById(id) as HTMLSelectElement).value;
    return {
      shown: { type: value("type"), hash: value("hash"), remove: !document.getElementById("remove")!.hidden },
      inUse: { type: state.type, hash: state.filter.hash, remove: state.type !== "standard" },
    };
  });
}

(MISSING ? describe.skip : describe)("the page", () => {
  let server: ChildProcess;
  let browser: Browser;
  let page: Page;
  let url: string;
  const errors: string[] = [];

  async function open(width: number, height: number): Promise<Page> {
    const opened = await browser.newPage({ viewport: { width, height } });
    opened.on("pageerror", (error) => errors.push(error.message));
    opened.on("response", (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
    });
    await opened.goto(url);
    await opened.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    return opened;
  }

  beforeAll(async () => {
    ({ server, url } = await serve(["--port", "0"]));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await open(1280, 900);
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
    expect(errors).toEqual([]); // no page errors and no failed request (a favicon 404 included) in any test
  });

  it("comes up cross-origin isolated (SharedArrayBuffer available), with no errors", async () => {
    expect(await page.evaluate(() => crossOriginIsolated && typeof SharedArrayBuffer === "function")).toBe(true);
    expect(errors).toEqual([]);
  });

  it("serves only the page and the library build (no node_modules: the library needs no loader)", async () => {
    const code = async (path: string) => (await fetch(new URL(path, url))).status;
    expect(await code("/dist/index.js")).toBe(200);
    for (const outside of ["/package.json", "/dist/..%2Fpackage.json", "/node_modules/vitest/package.json", "/web/..%2Fpackage.json", "/web/..%2F.ci/run"]) {
      expect(await code(outside), outside).toBe(404);
    }
  });

  it("Add turns the key's positions green on the bit array, and says where they come from", async () => {
    await press(page, "hello", "Add");
    await expect.poll(() => status(page)).toBe("added “hello”");
    const positions = page.locator("#positions li");
    expect(await positions.count()).toBe(7); // k for the default n = 100, p = 0.01
    for (let i = 0; i < 7; i++) {
      const item = positions.nth(i);
      expect(await item.getAttribute("data-state")).toBe("set");
      expect(await item.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe("rgb(30, 158, 62)");
      const pixel = await pixelOf(page, Number(await item.getAttribute("data-index")));
      expect(isGreen(pixel), `pixel ${pixel} at position ${await item.getAttribute("data-index")}`).toBe(true);
    }
    const explained = await page.locator("#explain").textContent();
    expect(explained).toMatch(/hashed with xxh3 gives h₁ = 0x[0-9a-f]{16}/);
    expect(explained).toContain("triple hashing makes its k = 7 positions h₁ + i·h₂ + i(i−1)/2·h₃ (i = 0 … 6), h₂ mixed from h₁ and h₃ from h₂");
    await page.screenshot({ path: `${ARTIFACTS}page-added.png`, fullPage: true });
  });

  it("explains a one-hash filter's position as h₁ itself, not as a formula over i = 0 … 0", async () => {
    const fresh = await open(1280, 900);
    await makeDirectly(fresh, "standard", 1000, 1);
    await press(fresh, "solo", "Add");
    const explained = (await fresh.locator("#explain").textContent())!;
    expect(explained).toContain("its one position (k = 1) is h₁ itself, scaled into 0 … 999:");
    expect(explained).not.toContain("i = 0 … 0");
    // One bit, in the singular: not "All 1 bits are set".
    const why = async () => (await fresh.locator("#explain p").last().textContent())!;
    expect(await why()).toBe("Add set its bit to 1.");
    await press(fresh, "solo", "Add");
    expect(await why()).toBe("Add set its bit to 1 (it was 1 already: “solo” had been added before, and set it itself).");
    await press(fresh, "solo", "Query");
    expect(await why()).toBe("Its bit is set, as adding “solo” left it.");
    await fresh.getByLabel("Filter type").selectOption("counting");
    await press(fresh, "solo", "Add");
    expect(await why()).toBe("Add counted its counter up by one.");
    await fresh.close();
  });

  it("a key's positions are buttons a screen reader names, and Enter or Space on one scrolls the view to its bit", async () => {
    const fresh = await open(1280, 900);
    await makeDirectly(fresh, "standard", 1_000_000, 7);
    await press(fresh, "hello", "Add");
    const chips = fresh.getByRole("button", { name: /^bit [\d,]+: set; find it in the filter$/ });
    expect(await chips.count()).toBe(7);
    const indices = await fresh.locator("#positions li").evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.index)));
    const last = indices.indexOf(Math.max(...indices));
    expect(await chips.nth(last).getAttribute("aria-label")).toBe(`bit ${Math.max(...indices).toLocaleString("en-US")}: set; find it in the filter`);
    for (const key of ["Enter", " "]) {
      await fresh.locator(".cells-view").evaluate((view) => (view.scrollTop = 0));
      await chips.nth(last).focus();
      await fresh.keyboard.press(key === " " ? "Space" : key);
      await expect.poll(() => fresh.locator(".cells-view").evaluate((view) => view.scrollTop), { message: key }).toBeGreaterThan(0);
    }
    await fresh.close();
  });

  it("the cell view, which Tab reaches to scroll it by keyboard, has the name a screen reader announces there", async () => {
    const fresh = await open(1280, 900);
    await makeDirectly(fresh, "standard", 1_000_000, 7);
    // A name on an element with no role is dropped (ARIA prohibits naming a generic div): focus on it announced nothing.
    const view = fresh.getByRole("group", { name: "The filter's cells; scroll to see them all" });
    expect(await view.count()).toBe(1);
    await fresh.getByLabel("Zoom").focus();
    await fresh.keyboard.press("Tab");
    expect(await view.evaluate((element) => element === document.activeElement)).toBe(true);
    await fresh.keyboard.press("PageDown");
    await expect.poll(() => view.evaluate((element) => element.scrollTop)).toBeGreaterThan(0);
    await fresh.close();
  });

  it("with murmur3_128, shows h₂ beside h₁: the positions follow from them as the page says, ⌊((h₁ + i·h₂ + i(i−1)/2·h₃) mod 2^64) · m / 2^64⌋", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("Hash function").selectOption("murmur3_128");
    await makeDirectly(fresh, "standard", 1000, 7);
    await press(fresh, "hello", "Add");
    await expect.poll(() => status(fresh)).toBe("added “hello”");
    const explained = (await fresh.locator("#explain").textContent())!;
    const shown = /h₁ = (0x[0-9a-f]{16}) and h₂ = (0x[0-9a-f]{16})/.exec(explained);
    expect(shown, explained).not.toBeNull();
    expect(explained).toContain("h₃ mixed from h₂");
    const [h1, h2] = [BigInt(shown![1]), BigInt(shown![2])];
    const worked = indicesOf(h1, h2, "triple", 7, 1000);
    const chips = await fresh.locator("#positions li").evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.index)));
    expect(chips).toEqual(worked);
    await fresh.close();
  });

  it("Query of an absent key says definitely not present, with its zero bits red and grey on the canvas", async () => {
    await press(page, "definitely-not-here-42", "Query");
    await expect.poll(() => status(page)).toBe("definitely not present");
    const unset = page.locator('#positions li[data-state="unset"]');
    expect(await unset.count()).toBeGreaterThan(0);
    expect(await unset.first().evaluate((element) => getComputedStyle(element).backgroundColor)).toBe("rgb(221, 51, 51)");
    expect(isGrey(await pixelOf(page, Number(await unset.first().getAttribute("data-index"))))).toBe(true);
    expect(await page.locator("#explain").textContent()).toContain("definitely never added");
    await press(page, "hello", "Query");
    await expect.poll(() => status(page)).toBe("probably present");
  });

  it("counts a key's cells, not its positions, when two positions fall on one cell (bit, or counter counted once)", async () => {
    // The page's first filter: n = 100, p = 1% gives m = 959, k = 7; about 1 key in 45 has two positions on one bit.
    const reference = BloomFilter.withSize(959, 7);
    const key = Array.from({ length: 10_000 }, (_, i) => `key${i}`).find((candidate) => new Set(reference.positions(candidate)).size === 6)!;
    const cells = new Set(reference.positions(key)).size;
    reference.dispose();
    const fresh = await open(1280, 900);
    const why = async () => (await fresh.locator("#explain p").last().textContent())!;
    await press(fresh, key, "Query");
    await expect.poll(() => status(fresh)).toBe("definitely not present");
    expect(await why()).toMatch(new RegExp(`^Its 7 positions fall on ${cells} bits \\(bit [\\d,]+ twice\\)\\. Bit [\\d,]+ and ${cells - 1} others are 0\\.`));
    await press(fresh, key, "Add");
    await press(fresh, key, "Query");
    expect(await why()).toContain(`All ${cells} bits are set, as adding “${key}” left them.`);
    await fresh.getByLabel("Filter type").selectOption("counting");
    await press(fresh, key, "Add");
    expect(await why()).toContain(`Add counted each of these ${cells} counters up by one.`);
    const counters = await fresh.evaluate(() => Array.from((window as unknown as { bloomkitPage: PageHook }).bloomkitPage.state.counters!));
    expect(counters.filter((c) => c === 1)).toHaveLength(cells); // one add, each of its counters up by one, the shared one too
    await fresh.close();
  });

  it("refuses an empty key and changes nothing", async () => {
    const before = await page.locator('dd[data-stat="n"]').textContent();
    await press(page, "", "Add");
    await expect.poll(() => status(page)).toMatch(/empty key is refused/);
    expect(await page.locator('dd[data-stat="n"]').textContent()).toBe(before);
  });

  it("bulk keys: readable rates beside the formula, false positives named, and an overfull warning", async () => {
    await page.getByLabel("Random keys").fill("300");
    await page.getByRole("button", { name: "Add random keys" }).click();
    await expect.poll(() => page.locator('dd[data-stat="n"]').textContent()).toBe("301 of the 100 it was sized for");
    await expect.poll(() => status(page)).toContain("overfull");
    expect(await page.getByRole("status").getAttribute("class")).toBe("warn");
    const warning = page.getByRole("alert");
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toMatch(/^Overfull: 301 keys in a filter sized for 100\./);
    const measured = (await page.locator('dd[data-stat="measured"]').textContent())!;
    const formula = (await page.locator('dd[data-stat="formula"]').textContent())!;
    expect(measured).toMatch(/^\d+(\.\d+)?% \([\d,]+ of 10,000 random keys never added looked present\)$/);
    expect(formula).toMatch(/^\(1 − e\^\(−kn\/m\)\)\^k = \d+(\.\d+)?%$/);
    // The measured rate is what this fill predicts, fill^k (10,000 probes at ≈ 44%: σ ≈ 0.5 points). The formula's
    // own value also carries the fill's chance spread in 959 bits (σ ≈ 3.5 points at k = 7), so it gets a wider band.
    const fill = await page.evaluate(() => (window as unknown as { bloomkitPage: { state: { filter: { fillRatio: number } } } }).bloomkitPage.state.filter.fillRatio);
    expect(Math.abs(parseFloat(measured) - 100 * fill ** 7)).toBeLessThan(3);
    expect(Math.abs(parseFloat(measured) - parseFloat(formula.split("= ")[1]))).toBeLessThan(15);
    // The warning's rate follows from the fill it gives ("X% of its bits are set, so … Y%"): Y is X^k, not the formula's rate at n.
    const warned = /(\d+(?:\.\d+)?)% of its bits are set, so a key never added now looks present about (\d+(?:\.\d+)?)% of the time/.exec((await warning.textContent())!);
    expect(warned, (await warning.textContent())!).not.toBeNull();
    expect(Math.abs(parseFloat(warned![2]) - 100 * fill ** 7)).toBeLessThan(0.06);
    for (const text of [measured, formula, await warning.textContent()]) expect(text).not.toMatch(/\de[+-]\d/);
    // 301 keys in a filter for 100: many absent keys now look present, and the page says which are false positives.
    let falsePositive = false;
    for (let i = 0; i < 50 && !falsePositive; i++) {
      await press(page, `never-added-${i}`, "Query");
      falsePositive = (await status(page)) === "false positive";
    }
    expect(falsePositive).toBe(true);
    expect(await page.locator("#explain").textContent()).toMatch(/was never added: other keys set them/);
    // Both charts draw the formula's line and the measured dots, and the legend names them.
    for (const id of ["fpr-chart", "fill-chart"]) {
      const drawn = await page.evaluate((chartId) => {
        const canvas = document.getElementById(chartId) as HTMLCanvasElement;
        const data = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
        let line = 0;
        let dots = 0;
        for (let at = 0; at < data.length; at += 4) {
          if (data[at] === 44 && data[at + 1] === 127 && data[at + 2] === 184) line++;
          if (data[at] === 192 && data[at + 1] === 57 && data[at + 2] === 43) dots++;
        }
        return { line, dots };
      }, id);
      expect(drawn.line, id).toBeGreaterThan(50);
      expect(drawn.dots, id).toBeGreaterThan(10);
    }
    expect(await page.locator("figure.chart figcaption").textContent()).toMatch(/formula[^]*measured[^]*n the filter was sized for/);
  });

  it("the fill bar is as wide as the fill, also when the fill is written <0.1% or >99.9%", async () => {
    // The bar's width is the fill as a number: "<0.1%" and ">99.9%", words for a reader, are no CSS width, and the bar stayed as it was.
    // A page of its own: its last filter, 16,777,216 bits, left on the shared page, made the counting test after it
    // copy 16,777,216 counters at every step (112-166 s, past the test's 120 s on a slow day).
    const fresh = await open(1280, 900);
    const barAndFill = () =>
      fresh.evaluate(() => ({
        bar: parseFloat(document.getElementById("fill-bar")!.style.width),
        fill: 100 * (window as unknown as { bloomkitPage: { state: { filter: { fillRatio: number } } } }).bloomkitPage.state.filter.fillRatio,
      }));
    // 131,000 keys in 100,000 bits at k = 7 leave about 10 bits of them at 0: 99.99% set.
    await makeDirectly(fresh, "standard", 100_000, 7);
    await fresh.getByLabel("Random keys").fill("131000");
    await fresh.getByRole("button", { name: "Add random keys" }).click();
    await expect.poll(() => fresh.locator('dd[data-stat="fill"]').textContent()).toMatch(/^>99\.9% set/);
    let { bar, fill } = await barAndFill();
    expect(bar / fill).toBeCloseTo(1, 2); // CSS keeps 6 significant digits
    // One key in 16,777,216 bits: 7 bits set, 0.00004%.
    await makeDirectly(fresh, "standard", 16_777_216, 7);
    await press(fresh, "one key", "Add");
    await expect.poll(() => fresh.locator('dd[data-stat="fill"]').textContent()).toMatch(/^<0\.1% set/);
    ({ bar, fill } = await barAndFill());
    expect(fill).toBeGreaterThan(0);
    expect(bar / fill).toBeCloseTo(1, 2); // CSS keeps 6 significant digits
    await fresh.close();
  });

  it("counting filters show counter values at the default zoom, and remove keys", async () => {
    await page.getByLabel("Filter type").selectOption("counting");
    expect(await page.locator("#cells-title").textContent()).toBe("Counters");
    expect(await page.getByLabel("Zoom").inputValue()).toBe("12");
    expect(await page.getByRole("button", { name: "Remove" }).isVisible()).toBe(true);
    for (const button of ["Add", "Add", "Add", "Remove"] as const) await press(page, "counted", button);
    await expect.poll(() => status(page)).toBe("removed “counted”");
    await press(page, "counted", "Query");
    await expect.poll(() => status(page)).toBe("probably present");
    const positions = await page.locator("#positions li").evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.index)));
    const counters = await page.evaluate(() => Array.from((window as unknown as { bloomkitPage: PageHook }).bloomkitPage.state.counters!));
    expect(counters.filter((c) => c > 0)).toHaveLength(new Set(positions).size);
    for (const index of positions) expect(counters[index]).toBe(2);
    expect(await page.locator("#positions li").first().textContent()).toMatch(/×2$/);
    // The value is written in the cell: dark text pixels inside a counter of 2, none in a counter of 0.
    const darkPixels = (index: number) =>
      page.evaluate((i) => {
        const hook = (window as unknown as { bloomkitPage: PageHook }).bloomkitPage;
        const { x, y } = hook.reveal(i);
        const canvas = document.getElementById("bits") as HTMLCanvasElement;
        const data = canvas.getContext("2d")!.getImageData(Math.floor(x) - 4, Math.floor(y) - 4, 8, 8).data;
        let dark = 0;
        for (let at = 0; at < data.length; at += 4) if (data[at] + data[at + 1] + data[at + 2] < 250) dark++;
        return dark;
      }, index);
    expect(await darkPixels(positions[0])).toBeGreaterThan(3);
    expect(await darkPixels(counters.indexOf(0))).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}page-counting.png`, fullPage: true });
  });

  it("a cuckoo filter is not offered fnv1a_64, which it refuses: picked for a standard filter, the hash becomes xxh3", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("Hash function").selectOption("fnv1a_64");
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    const { shown, inUse } = await described(fresh);
    expect(shown).toEqual(inUse);
    expect(inUse.type).toBe("cuckoo");
    expect(await fresh.getByLabel("Hash function").inputValue()).toBe("xxh3");
    expect(await fresh.locator('#hash option[value="fnv1a_64"]').isDisabled()).toBe(true);
    await fresh.getByLabel("Filter type").selectOption("standard");
    expect(await fresh.locator('#hash option[value="fnv1a_64"]').isDisabled()).toBe(false);
    await fresh.close();
  });

  it("cuckoo filters show buckets of 4, the key's two candidate buckets and its fingerprint", async () => {
    await page.getByLabel("Filter type").selectOption("cuckoo");
    expect(await page.locator("#cells-title").textContent()).toBe("Buckets");
    await page.getByLabel("Random keys").fill("40");
    await page.getByRole("button", { name: "Add random keys" }).click();
    await press(page, "fingerprinted", "Add");
    await press(page, "fingerprinted", "Query");
    await expect.poll(() => status(page)).toBe("probably present");
    const { fingerprint, buckets, slots } = await page.evaluate(() => {
      const { state } = (window as unknown as { bloomkitPage: PageHook }).bloomkitPage;
      return { ...state.filter.locate("fingerprinted"), slots: Array.from(state.slots!) };
    });
    const shown = await page.locator("#positions .bucket").evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.bucket)));
    expect(shown).toEqual([...new Set(buckets)]);
    // Exactly the slots holding the fingerprint in those buckets are marked, and there is at least one.
    const holding = [...new Set(buckets)].flatMap((bucket) => [0, 1, 2, 3].map((j) => bucket * 4 + j)).filter((slot) => slots[slot] === fingerprint);
    expect(holding.length).toBeGreaterThan(0);
    const marked = await page.locator("#positions .slot.match").evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.slot)));
    expect(marked).toEqual(holding);
    expect(await page.locator("#positions .slot.match").first().textContent()).toBe(fingerprint.toString(16).padStart(4, "0"));
    expect(await page.locator("#explain").textContent()).toContain(`fingerprint 0x${fingerprint.toString(16).padStart(4, "0")}`);
    // On the canvas: the slot is filled (light green), and its bucket has the blue candidate frame just outside its left edge.
    const framed = await page.evaluate((slot) => {
      const hook = (window as unknown as { bloomkitPage: PageHook }).bloomkitPage;
      const { x, y, left } = hook.reveal(slot);
      const canvas = document.getElementById("bits") as HTMLCanvasElement;
      const context = canvas.getContext("2d")!;
      const pixel = (px: number, py: number) => Array.from(context.getImageData(Math.floor(px), Math.floor(py), 1, 1).data.slice(0, 3));
      const bucketLeft = left - (slot % 4) * hook.state.grid.slotWidth;
      // The frame is 2 px wide, 1.5 px outside the bucket: the pixel 2 px left of it is wholly frame.
      return { centre: pixel(x, y + 4), frame: pixel(bucketLeft - 2, y) };
    }, holding[0]);
    expect(framed.frame).toEqual([44, 127, 184]);
    expect(framed.centre[1]).toBeGreaterThan(framed.centre[0]); // the filled slot's green tint, not empty grey
    await page.screenshot({ path: `${ARTIFACTS}page-cuckoo.png`, fullPage: true });
    await press(page, "fingerprinted", "Remove");
    await press(page, "fingerprinted", "Query");
    await expect.poll(() => status(page)).toBe("definitely not present");
    expect(await page.locator("#positions .slot.match").count()).toBe(0);
  });

  it("draws a filter of 1,000,000 bits at the smallest and the largest zoom", async () => {
    await makeDirectly(page, "standard", 1_000_000, 7);
    await page.getByLabel("Random keys").fill("50000");
    await page.getByRole("button", { name: "Add random keys" }).click();
    await expect.poll(() => page.locator('dd[data-stat="n"]').textContent(), { timeout: 30_000 }).toMatch(/^50,000 of/);
    await press(page, "hello", "Add");
    const positions = await page.locator("#positions li").evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.index)));
    for (const zoom of ["1", "24"]) {
      await page.getByLabel("Zoom").fill(zoom);
      expect(await page.locator("#zoom-note").textContent()).toMatch(new RegExp(`^1,000,000 bits, ${zoom} px each;`));
      // The view is drawn: about 1 − e^(−7·50,000/10⁶) ≈ 30% of the bits are set, so both colours show.
      const { green, grey, total } = await canvasColors(page);
      expect(green / total, `zoom ${zoom}`).toBeGreaterThan(0.1);
      expect(grey / total, `zoom ${zoom}`).toBeGreaterThan(0.2);
      // Every position of the key, and the very last bit, draws as the filter holds it.
      const bits = await page.evaluate(() => Array.from((window as unknown as { bloomkitPage: PageHook }).bloomkitPage.state.bits!));
      for (const index of [...positions, 999_999, 0]) {
        const set = ((bits[index >> 3] >> (index & 7)) & 1) === 1;
        const pixel = await pixelOf(page, index);
        expect(set ? isGreen(pixel) : isGrey(pixel), `bit ${index} at zoom ${zoom}: ${pixel}`).toBe(true);
      }
      await page.screenshot({ path: `${ARTIFACTS}page-large-zoom-${zoom}.png` });
    }
    expect(errors).toEqual([]);
  });

  it("goes beyond: 16,777,216 bits at zoom 24, a sheet taller than a browser scrolls, down to the last bit", async () => {
    await page.getByLabel("m (bits)").fill(String(2 ** 24));
    await page.getByRole("button", { name: "New filter" }).click();
    await page.getByLabel("Random keys").fill("100000");
    await page.getByRole("button", { name: "Add random keys" }).click();
    await expect.poll(() => page.locator('dd[data-stat="n"]').textContent(), { timeout: 30_000 }).toMatch(/^100,000 of/);
    await page.getByLabel("Zoom").fill("24");
    expect(await page.locator("#zoom-note").textContent()).toMatch(/^16,777,216 bits, 24 px each; 50 a row, 335,545 rows: scroll for the rest$/);
    // The states of a few bits, read in the page (the 2 MB array stays there): the first set bit, the middle, the end.
    const probe = await page.evaluate(() => {
      const bits = (window as unknown as { bloomkitPage: PageHook }).bloomkitPage.state.bits!;
      const isSet = (index: number) => ((bits[index >> 3] >> (index & 7)) & 1) === 1;
      let firstSet = 0;
      while (!isSet(firstSet)) firstSet++;
      return [0, firstSet, 2 ** 23 + 17, 2 ** 24 - 51, 2 ** 24 - 1].map((index) => ({ index, set: isSet(index) }));
    });
    for (const { index, set } of probe) {
      const pixel = await pixelOf(page, index);
      expect(set ? isGreen(pixel) : isGrey(pixel), `bit ${index}: ${pixel}`).toBe(true);
    }
    expect(errors).toEqual([]);
  });

  it("presets set up the classic uses, with keys added and one to try", async () => {
    const expected = {
      crawler: { type: "standard", n: "5,000 of the 1,000,000 it was sized for", verdict: "probably present", key: "https://news.example.com/article/17" },
      cache: { type: "standard", n: "20,000 of the 100,000 it was sized for", verdict: "definitely not present", key: "user:999999" },
      spam: { type: "counting", n: "1,000 of the 10,000 it was sized for", verdict: "probably present", key: "spammer3@spam.example" },
      cuckoo: { type: "cuckoo", n: "1,000", verdict: "probably present", key: "spammer3@spam.example" },
    };
    for (const [preset, want] of Object.entries(expected)) {
      await page.getByLabel("Start from").selectOption(preset);
      await expect.poll(() => page.locator('dd[data-stat="n"]').textContent(), { timeout: 30_000 }).toBe(want.n);
      expect(await page.getByLabel("Filter type").inputValue()).toBe(want.type);
      expect(await page.getByLabel("Key", { exact: true }).inputValue()).toBe(want.key);
      expect(await status(page)).toBe(want.verdict);
      expect(await page.locator("#story").textContent()).not.toBe("");
    }
    expect(errors).toEqual([]);
  });

  it("a filter made from the controls leaves the preset: its title and story, about keys no longer there, give way", async () => {
    await page.getByLabel("Start from").selectOption("crawler");
    await expect.poll(() => page.locator('dd[data-stat="n"]').textContent(), { timeout: 30_000 }).toBe("5,000 of the 1,000,000 it was sized for");
    const story = await page.locator("#story").textContent();
    expect(story).toMatch(/5,000/);
    for (const change of [
      () => page.getByRole("button", { name: "New filter" }).click(),
      () => page.getByLabel("Filter type").selectOption("counting"),
      () => page.getByLabel("Hash function").selectOption("xxh64"),
    ]) {
      await page.getByLabel("Start from").selectOption("crawler");
      await expect.poll(() => page.locator('dd[data-stat="n"]').textContent(), { timeout: 30_000 }).toMatch(/^5,000 of/);
      await change();
      await expect.poll(() => page.getByLabel("Start from").inputValue()).toBe("own");
      expect(await page.locator("#story").textContent()).not.toBe(story);
      expect(await page.locator('dd[data-stat="n"]').textContent()).toMatch(/^0 of/);
    }
  });

  it("\"Your own settings\" that cannot be made leaves the list at the preset whose filter, story and keys stay", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("Start from").selectOption("crawler");
    await expect.poll(() => fresh.locator('dd[data-stat="n"]').textContent()).toMatch(/^5,000 of/);
    await fresh.getByLabel("n (expected keys)").fill("0");
    await fresh.getByLabel("Start from").selectOption("own");
    await expect.poll(() => status(fresh)).toMatch(/^n \(expected keys\) must be a whole number/);
    expect(await fresh.getByLabel("Start from").inputValue()).toBe("crawler");
    expect(await fresh.locator("#story").textContent()).toMatch(/^A web crawler/);
    expect(await fresh.locator('dd[data-stat="n"]').textContent()).toMatch(/^5,000 of/);
    // Made once the fields are good: the list says so.
    await fresh.getByLabel("n (expected keys)").fill("100");
    await fresh.getByLabel("Start from").selectOption("own");
    await expect.poll(() => fresh.locator('dd[data-stat="n"]').textContent()).toMatch(/^0 of the 100/);
    expect(await fresh.getByLabel("Start from").inputValue()).toBe("own");
    await fresh.close();
  });

  it("explains a counting filter's key that stays present after as many removes as adds: its counters stopped at 15", async () => {
    await makeDirectly(page, "counting", 8, 1);
    for (let i = 0; i < 17; i++) await press(page, "s", "Add");
    for (let i = 0; i < 17; i++) await press(page, "s", "Remove");
    await press(page, "s", "Query");
    await expect.poll(() => status(page)).toMatch(/false positive/);
    const why = await page.locator("#explain p").last().textContent();
    expect(why).toBe(
      "Its counter is set, yet “s” is not in the filter (never added, or removed since): other keys set it, or kept it set through removes: it reached 15 and stopped counting, so removes no longer count it down. A false positive.",
    );
    await page.getByLabel("from n and p").check();
  });

  it("says which of a counting key's counters an add or remove left alone: those at 15 stopped counting", async () => {
    const fresh = await open(1280, 900);
    await makeDirectly(fresh, "counting", 64, 3);
    // Two keys of 3 counters each that share exactly one: a fills its own to 15, then b counts up only its other two.
    const [a, b] = await fresh.evaluate(() => {
      const { filter } = (window as unknown as { bloomkitPage: { state: { filter: { positions(key: string): number[] } } } }).bloomkitPage.state;
      const cells = (key: string) => [...new Set(filter.positions(key))];
      const keys = Array.from({ length: 10_000 }, (_, i) => `key${i}`).filter((key) => cells(key).length === 3);
      return [keys[0], keys.find((key) => cells(key).filter((cell) => cells(keys[0]).includes(cell)).length === 1)!];
    });
    const counters = (key: string) =>
      fresh.evaluate((k) => {
        const { state } = (window as unknown as { bloomkitPage: { state: { filter: { positions(key: string): number[] }; counters: Uint8Array } } }).bloomkitPage;
        return [...new Set(state.filter.positions(k))].map((index) => state.counters[index]).sort((x, y) => x - y);
      }, key);
    const why = async () => (await fresh.locator("#explain p").last().textContent())!;
    for (let i = 0; i < 15; i++) await press(fresh, a, "Add");
    expect(await counters(a)).toEqual([15, 15, 15]);
    expect(await why()).toBe("Add counted each of these 3 counters up by one.");
    await press(fresh, a, "Add");
    expect(await counters(a)).toEqual([15, 15, 15]);
    expect(await why()).toBe("Add counted none up by one: all 3 reached 15 and stopped counting.");
    await press(fresh, b, "Add");
    expect(await counters(b)).toEqual([1, 1, 15]);
    expect(await why()).toBe("Add counted 2 of these 3 counters up by one: the other one reached 15 and stopped counting.");
    await press(fresh, b, "Remove");
    await expect.poll(() => status(fresh)).toBe(`removed “${b}”`);
    expect(await counters(b)).toEqual([0, 0, 15]);
    expect(await why()).toBe("Remove counted 2 of these 3 counters down by one: the other one reached 15 and stopped counting, so it stays set; a position stays “set” while another key still counts there.");
    await press(fresh, a, "Remove");
    await expect.poll(() => status(fresh)).toBe(`removed “${a}”`);
    expect(await counters(a)).toEqual([15, 15, 15]);
    expect(await why()).toBe("Remove counted none down by one: all 3 reached 15 and stopped counting, so they stay set; a position stays “set” while another key still counts there.");
    await fresh.close();
  });

  it("does not say a key a counting or cuckoo filter no longer holds was never added: it may have been removed", async () => {
    const fresh = await open(1280, 900);
    const why = async () => (await fresh.locator("#explain p").last().textContent())!;
    for (const type of ["counting", "cuckoo"] as const) {
      if (type === "counting") await makeDirectly(fresh, "counting", 1_000_000, 7);
      else await fresh.getByLabel("Filter type").selectOption("cuckoo");
      await press(fresh, "gone", "Add");
      await press(fresh, "gone", "Remove");
      await expect.poll(() => status(fresh), type).toBe("removed “gone”");
      await press(fresh, "gone", "Query");
      await expect.poll(() => status(fresh), type).toBe("definitely not present");
      expect(await why(), type).toMatch(/ so “gone” is not in the filter \(never added, or removed since\)\.$/);
      expect(await why(), type).not.toMatch(/never added\./);
    }
    // Removed, then a false positive through another key on its one counter: Remove refuses it without saying it was never added.
    await makeDirectly(fresh, "counting", 8, 1);
    await press(fresh, "gone", "Add");
    await press(fresh, "gone", "Remove");
    const other = await fresh.evaluate(() => {
      const { filter } = (window as unknown as { bloomkitPage: { state: { filter: { positions(key: string): number[] } } } }).bloomkitPage.state;
      return Array.from({ length: 1000 }, (_, i) => `other${i}`).find((key) => filter.positions(key)[0] === filter.positions("gone")[0])!;
    });
    await press(fresh, other, "Add");
    await press(fresh, "gone", "Remove");
    expect(await status(fresh)).toBe("“gone” is not in the filter (never added, or removed since); the filter only thinks it is (a false positive), and removing it would break other keys, so nothing was removed");
    await fresh.close();
  });

  it("Random keys takes whole numbers only, as the size fields do, and says what it got", async () => {
    await page.getByLabel("Filter type").selectOption("standard");
    await page.getByRole("button", { name: "New filter" }).click();
    const field = page.getByLabel("Random keys");
    const most = Number(await field.getAttribute("max"));
    expect(most).toBe(1_000_000);
    for (const value of ["1.9", "0", "-3", String(most + 1), "1e400", ""]) {
      await field.fill("");
      await field.pressSequentially(value); // as typed: fill() refuses text a number field cannot read
      await page.getByRole("button", { name: "Add random keys" }).click();
      const held = await field.inputValue();
      const got = held !== "" ? `got “${held}”` : value === "" ? "got nothing" : "got a number too large, or not a number";
      await expect.poll(() => status(page), value).toBe(`Random keys must be a whole number from 1 to 1,000,000, ${got}`);
      expect(await page.locator('dd[data-stat="n"]').textContent()).toMatch(/^0 of/);
    }
    await field.fill("1000");
  });

  it("keeps a record of at most 2,000,000 distinct keys: past it, adds are refused before the filter takes them", async () => {
    const fresh = await open(1280, 900);
    await makeDirectly(fresh, "standard", 2 ** 24, 3);
    const n = () => fresh.locator('dd[data-stat="n"]').textContent();
    const bits = () => fresh.evaluate(() => (window as unknown as { bloomkitPage: { state: { filter: { bitArray(): Uint8Array } } } }).bloomkitPage.state.filter.bitArray().reduce((sum, byte) => sum + byte, 0));
    await press(fresh, "kept", "Add");
    const random = fresh.getByLabel("Random keys");
    for (const amount of ["1000000", "999999"]) {
      await random.fill(amount);
      await fresh.getByRole("button", { name: "Add random keys" }).click();
    }
    await expect.poll(n, { timeout: 60_000 }).toMatch(/^2,000,000 /);
    const before = await bits();
    // One new key more, alone or among keys already kept, is refused; the filter and its count stay as they were.
    await random.fill("1");
    await fresh.getByRole("button", { name: "Add random keys" }).click();
    await expect.poll(() => status(fresh)).toBe(
      "nothing was added: the page keeps every key it adds, to tell false positives from keys it holds, and keeps at most 2,000,000; it holds 2,000,000, and this key is new. Make a new filter to go on",
    );
    await fresh.getByLabel("Keys, one per line").fill("kept\nnew one\nnew two\nkept");
    await fresh.getByRole("button", { name: "Add lines" }).click();
    await expect.poll(() => status(fresh)).toMatch(/it holds 2,000,000, and 2 of these keys are new\. Make a new filter to go on$/);
    await press(fresh, "another", "Add");
    await expect.poll(() => status(fresh)).toMatch(/and this key is new/);
    expect(await n()).toMatch(/^2,000,000 /);
    expect(await bits()).toBe(before);
    // A key it keeps already takes no room: added again, as before.
    await press(fresh, "kept", "Add");
    await expect.poll(() => status(fresh)).toBe("added “kept”");
    await fresh.close();
  }, 120_000);

  it("counts a key typed twice in one batch once against the record's 2,000,000 keys", async () => {
    const fresh = await open(1280, 900);
    await makeDirectly(fresh, "standard", 2 ** 20, 3);
    // The record filled to one key short of its limit directly: adding 1,999,999 keys through the page takes a minute.
    await fresh.evaluate(() => {
      const { exact } = (window as unknown as { bloomkitPage: { state: { exact: Map<string, number> } } }).bloomkitPage.state;
      for (let i = 0; i < 1_999_999; i++) exact.set(`held-${i}`, 1);
    });
    const lines = fresh.getByLabel("Keys, one per line");
    // One new key, twice: it takes one place, the last.
    await lines.fill("twice\ntwice");
    await fresh.getByRole("button", { name: "Add lines" }).click();
    // (The filter counts the record's keys as its own, and is overfull with them.)
    await expect.poll(() => status(fresh)).toMatch(/^added 2 of 2 keys\b/);
    // Full now: "a" twice and "b" are 2 new keys, not 3.
    await lines.fill("a\na\nb");
    await fresh.getByRole("button", { name: "Add lines" }).click();
    await expect.poll(() => status(fresh)).toMatch(/it holds 2,000,000, and 2 of these keys are new\. Make a new filter to go on$/);
    await fresh.close();
  }, 60_000);

  it("a filter that cannot be made leaves the controls describing the filter in use, and Remove hidden for a standard one", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("n (expected keys)").fill("100000000");
    for (const type of ["counting", "cuckoo"]) {
      await fresh.getByLabel("Filter type").selectOption(type);
      const { shown, inUse } = await described(fresh);
      expect(shown, type).toEqual(inUse);
      expect(inUse.type).toBe("standard");
      expect(await status(fresh)).toMatch(/16,777,216[^]*The filter in use stays: standard \(bits\)/);
    }
    await fresh.getByLabel("Hash function").selectOption("murmur3_128");
    let { shown, inUse } = await described(fresh);
    expect(shown).toEqual(inUse);
    // From "m and k directly", a cuckoo filter (sized from n and p only) that fails puts the sizing back too.
    await fresh.getByLabel("m and k directly").check();
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    ({ shown, inUse } = await described(fresh));
    expect(shown).toEqual(inUse);
    expect(await fresh.getByLabel("m and k directly").isChecked()).toBe(true);
    // A type that can be made is made, and then Remove shows.
    await fresh.getByLabel("Filter type").selectOption("counting");
    ({ shown, inUse } = await described(fresh));
    expect(shown).toEqual(inUse);
    expect(inUse.type).toBe("counting");
    await press(fresh, "kept", "Add");
    await press(fresh, "kept", "Remove");
    await expect.poll(() => status(fresh)).toBe("removed “kept”");
    await fresh.close();
  });

  it("back from a cuckoo filter (sized from n and p only), a standard or counting filter is made from m and k again when they were picked", async () => {
    const fresh = await open(1280, 900);
    const made = () =>
      fresh.evaluate(() => {
        const { state } = (window as unknown as { bloomkitPage: { state: { type: string; filter: { bits?: number; counters?: number; hashes?: number } } } }).bloomkitPage;
        return { type: state.type, cells: state.filter.counters ?? state.filter.bits, hashes: state.filter.hashes };
      });
    await fresh.getByLabel("Filter type").selectOption("counting");
    await fresh.getByLabel("m and k directly").check();
    await fresh.getByLabel("m (counters)").fill("640");
    await fresh.getByLabel("k (hashes)").fill("5");
    await fresh.getByRole("button", { name: "New filter" }).click();
    expect(await made()).toEqual({ type: "counting", cells: 640, hashes: 5 });
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    expect((await made()).type).toBe("cuckoo");
    expect(await fresh.getByLabel("from n and p").isChecked()).toBe(true);
    await fresh.getByLabel("Filter type").selectOption("standard");
    expect(await fresh.getByLabel("m and k directly").isChecked()).toBe(true);
    expect(await made()).toEqual({ type: "standard", cells: 640, hashes: 5 });
    // A preset sizes from n and p: a type picked after it keeps them, not the m and k picked before the preset.
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    await fresh.getByLabel("Start from").selectOption("cuckoo");
    await fresh.getByLabel("Filter type").selectOption("standard");
    expect(await fresh.getByLabel("from n and p").isChecked()).toBe(true);
    expect((await made()).cells).not.toBe(640);
    await fresh.close();
  });

  it("Enter in a size field makes the filter, as New filter does; Enter in Random keys adds them", async () => {
    const fresh = await open(1280, 900);
    const state = () =>
      fresh.evaluate(() => {
        const { state } = (window as unknown as { bloomkitPage: { state: { sizedFor: number; filter: { bits: number; size: number } } } }).bloomkitPage;
        return { sizedFor: state.sizedFor, bits: state.filter.bits, size: state.filter.size };
      });
    await fresh.getByLabel("n (expected keys)").fill("250");
    await fresh.getByLabel("n (expected keys)").press("Enter");
    expect((await state()).sizedFor).toBe(250);
    await fresh.getByLabel("m and k directly").check();
    await fresh.getByLabel("m (bits)").fill("4096");
    await fresh.getByLabel("m (bits)").press("Enter");
    expect((await state()).bits).toBe(4096);
    await fresh.getByLabel("Random keys").fill("7");
    await fresh.getByLabel("Random keys").press("Enter");
    expect((await state()).size).toBeGreaterThan(0);
    expect(await status(fresh)).toMatch(/added 7 of 7 keys/);
    await fresh.close();
  });

  it("Enter that ends an input method's composition (a key typed in Japanese) adds nothing and makes no filter", async () => {
    const fresh = await open(1280, 900);
    const state = () =>
      fresh.evaluate(() => {
        const { state } = (window as unknown as { bloomkitPage: { state: { sizedFor: number; filter: { size: number } } } }).bloomkitPage;
        return { sizedFor: state.sizedFor, size: state.filter.size };
      });
    // The keydown a browser sends for the Enter that picks "日本" from the input method's candidates: Chromium's, and Safari's.
    const composingEnter = (id: string) =>
      fresh.evaluate((target) => {
        for (const marked of [{ isComposing: true }, { keyCode: 229 }]) {
          const event = new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true, ...marked });
          if ("keyCode" in marked && event.keyCode !== 229) throw new Error("this browser's KeyboardEvent takes no keyCode");
          document.getElementById(target)!.dispatchEvent(event);
        }
      }, id);
    await fresh.getByLabel("Key", { exact: true }).fill("にほん");
    await composingEnter("key");
    await fresh.getByLabel("n (expected keys)").fill("250");
    await composingEnter("n");
    await fresh.getByLabel("Random keys").fill("7");
    await composingEnter("random-count");
    expect(await status(fresh)).toBe("");
    expect(await state()).toEqual({ sizedFor: 100, size: 0 });
    // Enter once the key is written adds it.
    await fresh.getByLabel("Key", { exact: true }).fill("日本");
    await fresh.getByLabel("Key", { exact: true }).press("Enter");
    await expect.poll(() => status(fresh)).toBe("added “日本”");
    expect(await state()).toEqual({ sizedFor: 100, size: 1 });
    await fresh.close();
  });

  it("says 1 key and 1 bucket, not 1 keys and 1 buckets", async () => {
    const fresh = await open(1280, 900);
    // 8 bits and 8 hashes are meant for about one key: 1 − e^(−8/8) = 63.2% of the bits set.
    await makeDirectly(fresh, "standard", 8, 8);
    expect(await fresh.locator("#derived").textContent()).toMatch(/^meant for about 1 key \(63\.2% of the bits set\); p there: /);
    // 32 hashes for 8 bits: one key already sets 98.2% of them, not half.
    await makeDirectly(fresh, "standard", 8, 32);
    expect(await fresh.locator("#derived").textContent()).toMatch(/^meant for about 1 key \(98\.2% of the bits set\); p there: /);
    // A cuckoo filter for one key is one bucket.
    await fresh.getByLabel("n and p").check();
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    await fresh.getByLabel("n (expected keys)").fill("1");
    await fresh.getByRole("button", { name: "New filter" }).click();
    expect(await fresh.locator("#zoom-note").textContent()).toMatch(/^1 bucket of 4 slots, .*; \d+ buckets a row, 1 row$/);
    await press(fresh, "only", "Add");
    await press(fresh, "second", "Add");
    // Its keys' two buckets are one: the formula counts the 4 slots a query meets (it counted 8, twice the rate).
    const formula = (await fresh.locator('dd[data-stat="formula"]').textContent())!;
    // 16-bit fingerprints, 2 keys in 4 slots: 1 − (1 − 1/65,535)^2, about 1 in 33,000 (8 slots read 1 in 16,000).
    const [, oneIn] = /^1 − \(1 − 1\/\(2\^f − 1\)\)\^\(4·load: one bucket\) = 1 in ([\d,]+)$/.exec(formula) ?? [formula];
    const library = await fresh.evaluate(() => (window as unknown as { bloomkitPage: { state: { filter: { falsePositiveRate(): number } } } }).bloomkitPage.state.filter.falsePositiveRate());
    expect(1 / Number(oneIn.replace(/,/g, "")) / library).toBeCloseTo(1, 1);
    for (const id of ["#zoom-note", "#derived", '[role="status"]', "#health"]) {
      const text = (await fresh.locator(id).count()) > 0 ? await fresh.locator(id).textContent() : "";
      expect(text, id).not.toMatch(/\b1 (bits|keys|counters|buckets)\b/);
    }
    await fresh.close();
  });

  it("refuses an n that is not a whole number, or too large, naming the field and showing what it holds", async () => {
    const fresh = await open(1280, 900);
    const field = fresh.getByLabel("n (expected keys)");
    const label = await fresh.locator('label[for="n"]').textContent();
    const sizedFor = () => fresh.evaluate(() => (window as unknown as { bloomkitPage: { state: { sizedFor: number } } }).bloomkitPage.state.sizedFor);
    const before = await sizedFor();
    for (const type of ["standard", "cuckoo"]) {
      await fresh.getByLabel("Filter type").selectOption(type);
      for (const typed of ["1.5", "0.5", "100.25", "1e308", "1e400", String(Number(await field.getAttribute("max")) + 1)]) {
        await field.fill("");
        await field.pressSequentially(typed); // as typed: fill() refuses text a number field cannot read
        await fresh.getByRole("button", { name: "New filter" }).click();
        const message = (await status(fresh))!;
        expect(message, typed).toMatch(new RegExp(`^${label!.replace(/[()]/g, "\\$&")} must be a whole number from 1 to `));
        const held = await field.inputValue();
        if (held === "") expect(message, typed).toContain("got a number too large, or not a number");
        else expect(message, typed).toContain(`got “${held}”`);
        expect(message, typed).not.toMatch(/Infinity|NaN/);
        expect(await fresh.locator("#derived").textContent(), typed).toBe(message);
        expect(await sizedFor(), typed).toBe(before);
      }
      await field.fill("100");
      await fresh.getByRole("button", { name: "New filter" }).click();
    }
    await fresh.close();
  });

  it("takes at most as many hash functions from n and p as from m and k, and says so naming the field", async () => {
    const fresh = await open(1280, 900);
    const most = Number(await fresh.getByLabel("k (hashes)").getAttribute("max"));
    expect(most).toBeGreaterThanOrEqual(7);
    const hashes = () => fresh.evaluate(() => (window as unknown as { bloomkitPage: { state: { filter: { hashes: number } } } }).bloomkitPage.state.filter.hashes);
    // From n and p: accepted exactly when the library's best k is at most the page's, for a rate around that edge and far below it.
    const seen = new Set<boolean>();
    for (const [n, p] of [[1000, 2 ** -(most - 1)], [1000, 2 ** -most], [1000, 2 ** -(most + 1)], [3, 1e-30], [3, 1e-300]] as const) {
      const wanted = await fresh.evaluate(async ([keys, rate]) => {
        const lib = (await (0, eval)('import("/dist/index.js")')) as { optimal(input: { n: number; p: number }): { k: number } };
        try {
          return lib.optimal({ n: keys, p: rate }).k;
        } catch {
          return Infinity;
        }
      }, [n, p] as const);
      await fresh.getByLabel("n (expected keys)").fill(String(n));
      await fresh.getByLabel("p (false-positive rate)").fill(String(p));
      await fresh.getByRole("button", { name: "New filter" }).click();
      seen.add(wanted <= most);
      if (wanted <= most) {
        expect(await status(fresh), `n = ${n}, p = ${p}`).toBe("");
        expect(await hashes()).toBe(wanted);
      } else {
        expect(await status(fresh), `n = ${n}, p = ${p}`).toMatch(new RegExp(`^p \\(false-positive rate\\) = ${String(p).replace(/[.+]/g, "\\$&")} needs .* hash functions .*at most ${most}\\b`));
        expect(await hashes()).toBeLessThanOrEqual(most);
      }
    }
    expect([...seen].sort()).toEqual([false, true]); // both sides of the edge were tried
    // From m and k: the same most.
    await fresh.getByLabel("m and k directly").check();
    await fresh.getByLabel("k (hashes)").fill(String(most));
    await fresh.getByRole("button", { name: "New filter" }).click();
    expect(await hashes()).toBe(most);
    await fresh.getByLabel("k (hashes)").fill(String(most + 1));
    await fresh.getByRole("button", { name: "New filter" }).click();
    expect(await status(fresh)).toBe(`k (hashes) must be a whole number from 1 to ${most}, got “${most + 1}”`);
    expect(await hashes()).toBe(most);
    await fresh.close();
  });

  it("calls m counters in a counting filter, in its label and its messages, and takes the m its field offers", async () => {
    const fresh = await open(1280, 900);
    const cells = () => fresh.evaluate(() => (window as unknown as { bloomkitPage: { state: { filter: { counters?: number; bits: number } } } }).bloomkitPage.state.filter);
    for (const [type, word] of [["counting", "counters"], ["standard", "bits"]]) {
      await fresh.getByLabel("Filter type").selectOption(type);
      // From n and p, a filter too large says what its m counts.
      await fresh.getByLabel("n (expected keys)").fill("10000000");
      await fresh.getByRole("button", { name: "New filter" }).click();
      expect(await status(fresh), type).toMatch(new RegExp(`needs m = [\\d,]+ ${word};`));
      await fresh.getByLabel("n (expected keys)").fill("100");
      await fresh.getByLabel("m and k directly").check();
      const label = `m (${word})`;
      expect(await fresh.locator('label[for="m"]').textContent()).toBe(label);
      const field = fresh.getByLabel(label, { exact: true });
      const [low, high] = [Number(await field.getAttribute("min")), Number(await field.getAttribute("max"))];
      expect(low).toBeGreaterThanOrEqual(1);
      expect(high).toBeGreaterThan(low);
      for (const [m, takes] of [[low - 1, false], [low, true], [high, true], [high + 1, false]] as const) {
        await field.fill(String(m));
        await fresh.getByRole("button", { name: "New filter" }).click();
        if (takes) {
          expect(await status(fresh), `${type}, m = ${m}`).toBe("");
          const made = await cells();
          expect(type === "counting" ? made.counters : made.bits, `${type}, m = ${m}`).toBe(m);
        } else {
          expect(await status(fresh), `${type}, m = ${m}`).toBe(`${label} must be a whole number from ${low.toLocaleString("en-US")} to ${high.toLocaleString("en-US")}, got “${m}”`);
        }
      }
      await field.fill("960");
      await fresh.getByRole("button", { name: "New filter" }).click();
      await fresh.getByLabel("from n and p").check();
    }
    await fresh.close();
  });

  it("refuses a p as out of range exactly when its field's min and max say it is, for every type", async () => {
    const fresh = await open(1280, 900);
    const field = fresh.getByLabel("p (false-positive rate)");
    const [low, high] = [Number(await field.getAttribute("min")), Number(await field.getAttribute("max"))];
    // The page takes what the library takes, a rate above 0 and below 1: the field's inclusive bounds are the numbers next to them.
    expect(low).toBeGreaterThan(0);
    expect(high).toBeLessThan(1);
    const typed = ["-0.5", "0", "1e-400", String(low), "1e-300", "1e-9", "1e-7", "0.000001", "0.01", "0.5", "0.6", "0.99", String(high), "1", "1.5"];
    for (const type of ["standard", "counting", "cuckoo"]) {
      await fresh.getByLabel("Filter type").selectOption(type);
      for (const p of typed) {
        await field.fill(p);
        await fresh.getByRole("button", { name: "New filter" }).click();
        const outside = await field.evaluate((input) => (input as HTMLInputElement).validity.rangeUnderflow || (input as HTMLInputElement).validity.rangeOverflow);
        const valid = await field.evaluate((input) => (input as HTMLInputElement).validity.valid);
        const message = (await status(fresh))!;
        const refused = message.startsWith("p (false-positive rate) must be between 0 and 1");
        expect(refused, `${type}, p = ${p}: ${message}`).toBe(outside);
        expect(valid, `${type}, p = ${p}`).toBe(!outside);
        if (refused) expect(message, `${type}, p = ${p}`).toContain(`got “${p}”`);
      }
      await field.fill("0.01");
      await fresh.getByRole("button", { name: "New filter" }).click();
    }
    await fresh.close();
  });

  it("refuses a p too small for a cuckoo filter's fingerprints, naming the field", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    for (const p of [1e-8, 2e-9, 1.8e-9, 1e-30]) {
      const bits = await fresh.evaluate(async (rate) => {
        const lib = (await (0, eval)('import("/dist/index.js")')) as { fingerprintBitsFor(p: number): number };
        try {
          return lib.fingerprintBitsFor(rate);
        } catch {
          return undefined;
        }
      }, p);
      await fresh.getByLabel("p (false-positive rate)").fill(String(p));
      await fresh.getByRole("button", { name: "New filter" }).click();
      const made = await fresh.evaluate(() => (window as unknown as { bloomkitPage: { state: { filter: { fingerprintBits: number } } } }).bloomkitPage.state.filter.fingerprintBits);
      if (bits === undefined) expect(await status(fresh), `p = ${p}`).toMatch(new RegExp(`^p \\(false-positive rate\\) = ${String(p).replace(/[.+]/g, "\\$&")} is too small for a cuckoo filter`));
      else {
        expect(await status(fresh), `p = ${p}`).toBe("");
        expect(made, `p = ${p}`).toBe(bits);
      }
    }
    await fresh.close();
  });

  it("refuses a cuckoo filter too large before making it, and frees every filter it replaces", async () => {
    const fresh = await open(1280, 900);
    // Every filter the page makes, through the library module it imports (the same module: the same URL).
    await fresh.evaluate(async () => {
      const lib = (await (0, eval)('import("/dist/index.js")')) as Record<string, Record<string, (...args: unknown[]) => unknown>>;
      const made: unknown[] = [];
      (window as unknown as { made: unknown[] }).made = made;
      for (const [name, method] of [["BloomFilter", "withSize"], ["CountingBloomFilter", "withSize"], ["CuckooFilter", "create"]]) {
        const original = lib[name][method];
        lib[name][method] = function (this: unknown, ...args: unknown[]) {
          const filter = original.apply(this, args);
          made.push(filter);
          return filter;
        };
      }
      // And every cuckoo table it sizes: the library's rule, not a copy of it in the page.
      const sized: unknown[] = [];
      (window as unknown as { sized: unknown[] }).sized = sized;
      const sizeFor = lib.CuckooFilter.sizeFor;
      lib.CuckooFilter.sizeFor = function (this: unknown, ...args: unknown[]) {
        const size = sizeFor.apply(this, args) as { capacity: number };
        sized.push({ args, capacity: size.capacity });
        return size;
      };
    });
    const sized = () => fresh.evaluate(() => (window as unknown as { sized: unknown[] }).sized.splice(0));
    const made = () =>
      fresh.evaluate(() => {
        const { made: filters, bloomkitPage } = window as unknown as { made: { disposed: boolean; capacity?: number }[]; bloomkitPage: { state: { filter: unknown } } };
        return { count: filters.length, live: filters.filter((filter) => !filter.disposed).length, inUse: filters.indexOf(bloomkitPage.state.filter), last: filters.at(-1)?.capacity };
      });
    const maxCells = 2 ** 24;
    // The largest n whose table fits the page's 16,777,216 slots (room for n at 95%), and the next one, which needs twice that.
    const largest = Math.floor(maxCells * 0.95);
    await fresh.getByLabel("n (expected keys)").fill(String(largest + 1));
    const started = Date.now();
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    expect(await status(fresh)).toContain(`${(2 * maxCells).toLocaleString("en-US")} slots`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await made()).toEqual({ count: 0, live: 0, inUse: -1, last: undefined });
    expect(await sized()).toContainEqual({ args: [largest + 1, 0.01], capacity: 2 * maxCells });
    await fresh.getByLabel("n (expected keys)").fill(String(largest));
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    expect(await made()).toEqual({ count: 1, live: 1, inUse: 0, last: maxCells });
    expect(await sized()).toContainEqual({ args: [largest, 0.01], capacity: maxCells });
    for (const type of ["standard", "counting", "cuckoo"]) {
      await fresh.getByLabel("n (expected keys)").fill("1000");
      await fresh.getByLabel("Filter type").selectOption(type);
      await fresh.getByRole("button", { name: "New filter" }).click();
    }
    // Seven made in all, and one left live: the last, in use; every one replaced was freed.
    const after = await made();
    expect(after.count).toBe(7);
    expect(after.live).toBe(1);
    expect(after.inUse).toBe(6);
    await fresh.close();
  });

  it("an add of a key already in a standard filter says who set its bits: the key itself, or other keys when it was a false positive", async () => {
    const fresh = await open(1280, 900);
    const explained = () => fresh.locator("#explain").textContent();
    await press(fresh, "twice", "Add");
    const k = await fresh.locator("#positions li").count();
    expect(await explained()).not.toMatch(/were 1 already/);
    await press(fresh, "twice", "Add");
    expect(await explained()).toContain(`(all ${k} were 1 already: “twice” had been added before, and set them itself)`);
    expect(await explained()).not.toContain("set by other keys");
    // Overfull, many keys never added look present; adding one of them finds its bits set by the others.
    await fresh.getByLabel("Random keys").fill("300");
    await fresh.getByRole("button", { name: "Add random keys" }).click();
    let falsePositive: string | undefined;
    for (let i = 0; i < 100 && falsePositive === undefined; i++) {
      await press(fresh, `never-added-${i}`, "Query");
      if ((await status(fresh)) === "false positive") falsePositive = `never-added-${i}`;
    }
    expect(falsePositive).toBeDefined();
    await press(fresh, falsePositive!, "Add");
    expect(await explained()).toContain(`(all ${k} were 1 already, set by other keys: until this add, “${falsePositive}” was a false positive)`);
    await fresh.close();
  });

  it("a cuckoo filter that refuses a key for its own copies says so, not that the filter is full", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    const look = (key: string) =>
      fresh.evaluate((k) => {
        const { filter } = (window as unknown as { bloomkitPage: { state: { filter: { count(key: string): number; locate(key: string): { buckets: number[] }; loadFactor: number } } } }).bloomkitPage.state;
        return { copies: filter.count(k), most: new Set(filter.locate(k).buckets).size * 4, load: filter.loadFactor };
      }, key);
    const { most } = await look("again");
    for (let i = 0; i < most; i++) {
      await press(fresh, "again", "Add");
      expect(await status(fresh), `add ${i + 1}`).toBe("added “again”");
    }
    await press(fresh, "again", "Add");
    const { copies, load } = await look("again");
    expect(copies).toBe(most);
    expect(load).toBeLessThan(0.5);
    const loadText = `${(load * 100).toFixed(1)}%`;
    expect(await status(fresh)).toBe(`“again” was not added: the filter holds it ${most} times already, the most one key can be (its ${most === 8 ? "two buckets" : "one bucket"} of 4 slots); the filter itself is ${loadText} full`);
    expect(await fresh.locator("#explain").textContent()).toContain(`${most} copies of “again”, the most one key can have`);
    expect(await fresh.getByRole("alert").isVisible()).toBe(false);
    // The same from pasted lines: one too many copies of a key.
    const { most: most2 } = await look("lines");
    await fresh.getByLabel("Keys, one per line").fill(Array(most2 + 1).fill("lines").join("\n"));
    await fresh.getByRole("button", { name: "Add lines" }).click();
    expect(await status(fresh)).toMatch(new RegExp(`^added ${most2} of ${most2 + 1} keys: 1 was refused because the filter holds that key as many times as one key can be`));
    expect(await fresh.getByRole("alert").isVisible()).toBe(false);
    await fresh.close();
  });

  it("a cuckoo filter that fills during a bulk add stops offering keys, and says how many it stored and how many it did not offer", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("Filter type").selectOption("cuckoo");
    await fresh.getByLabel("n (expected keys)").fill("100");
    await fresh.getByRole("button", { name: "New filter" }).click();
    const counts = () =>
      fresh.evaluate(() => {
        const { state } = (window as unknown as { bloomkitPage: { state: { filter: { size: number; capacity: number }; failedAdds: number } } }).bloomkitPage;
        return { size: state.filter.size, capacity: state.filter.capacity, failed: state.failedAdds };
      });
    // Each refused key makes up to 500 moves and undoes them: offering all of these to a full table froze the page.
    const wanted = 100_000;
    await fresh.getByLabel("Random keys").fill(String(wanted));
    await fresh.getByRole("button", { name: "Add random keys" }).click();
    const said = (await status(fresh))!;
    const match = /^added ([\d,]+) of 100,000 keys: the filter is full, so the last ([\d,]+) were not offered to it$/.exec(said);
    expect(match, said).not.toBeNull();
    const [stored, untried] = [match![1], match![2]].map((text) => Number(text.replaceAll(",", "")));
    const { size, capacity, failed } = await counts();
    expect(stored).toBe(size);
    expect(size).toBeLessThanOrEqual(capacity);
    // Most keys were never offered; those offered were stored or refused, and the refusals are counted.
    expect(untried).toBeGreaterThan(wanted / 2);
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThanOrEqual(wanted - untried - stored);
    expect(await fresh.getByRole("alert").isVisible()).toBe(true);
    await fresh.close();
  });

  it("a cuckoo filter's n counts a key added twice as the two slots it takes, so the chart's formula follows the load", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("Start from").selectOption("cuckoo");
    await expect.poll(() => fresh.locator('dd[data-stat="n"]').textContent()).toBe("1,000");
    await press(fresh, "again", "Add");
    await press(fresh, "again", "Add");
    // Before, n stayed 1,001 (distinct keys) while 1,002 slots were taken: the formula's load fell below the measured one.
    await expect.poll(() => fresh.locator('dd[data-stat="n"]').textContent()).toBe("1,002, of them 1,001 distinct (a key added again takes another slot)");
    const { size, n } = await fresh.evaluate(() => {
      const { state } = (window as unknown as { bloomkitPage: { state: { filter: { size: number }; history: { n: number }[] } } }).bloomkitPage;
      return { size: state.filter.size, n: state.history[state.history.length - 1].n };
    });
    expect([size, n]).toEqual([1_002, 1_002]);
    await fresh.close();
  });

  it("a cuckoo filter's second copy of a key is named where it went, not only where the first one sits", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("Start from").selectOption("cuckoo");
    const slotsOf = () =>
      fresh.evaluate(() => {
        const { state } = (window as unknown as { bloomkitPage: PageHook }).bloomkitPage;
        const { fingerprint, buckets } = state.filter.locate("twice");
        return [...new Set(buckets)].flatMap((bucket) => [0, 1, 2, 3].map((j) => bucket * 4 + j)).filter((slot) => state.slots![slot] === fingerprint);
      });
    const named = (slot: number) => `bucket ${Math.floor(slot / 4).toLocaleString("en-US")}, slot ${slot % 4}`;
    await press(fresh, "twice", "Add");
    const first = await slotsOf();
    expect(await fresh.locator("#explain p").last().textContent()).toBe(`Add stored the fingerprint; it now sits in ${named(first[0])}.`);
    await press(fresh, "twice", "Add");
    const both = await slotsOf();
    expect(both).toHaveLength(2);
    expect(await fresh.locator("#explain p").last().textContent()).toBe(`Add stored another copy of the fingerprint; its 2 copies now sit in ${named(both[0])} and ${named(both[1])}.`);
    await fresh.close();
  });

  it("a cuckoo filter's load says how full it will be at its n, not that it was sized for 95%", async () => {
    const fresh = await open(1280, 900);
    await fresh.getByLabel("Start from").selectOption("cuckoo");
    await expect.poll(() => fresh.locator('dd[data-stat="n"]').textContent()).toBe("1,000");
    const { sizedFor, capacity, load } = await fresh.evaluate(() => {
      const { state } = (window as unknown as { bloomkitPage: { state: { sizedFor: number; filter: { capacity: number; loadFactor: number } } } }).bloomkitPage;
      return { sizedFor: state.sizedFor, capacity: state.filter.capacity, load: state.filter.loadFactor };
    });
    const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
    expect(await fresh.locator('dd[data-stat="fill"]').textContent()).toBe(
      `${percent(load)} of slots hold a fingerprint; ${percent(sizedFor / capacity)} will at n = ${sizedFor.toLocaleString("en-US")}, and adds start to fail near 95.0%`,
    );
    await fresh.close();
  });

  it("writes a huge key's start and length, not the whole key, and still gives the filter all of it", async () => {
    const fresh = await open(1280, 900);
    const length = 2_000_000;
    const pressLong = (key: string, button: string) =>
      fresh.evaluate(([value, id]) => {
        (document.getElementById("key") as HTMLInputElement).value = value;
        document.getElementById(id)!.click();
      }, [key, button] as const);
    const key = "k".repeat(length - 1);
    await pressLong(`${key}a`, "add");
    await expect.poll(() => status(fresh)).toMatch(/^added “k+…” \(2,000,000 characters\)$/);
    for (const id of ["#verdict", "#explain"]) expect((await fresh.locator(id).textContent())!.length, id).toBeLessThan(2000);
    await pressLong(`${key}a`, "query");
    await expect.poll(() => status(fresh)).toBe("probably present");
    // A key that differs only past the characters shown is another key.
    await pressLong(`${key}b`, "query");
    await expect.poll(() => status(fresh)).toBe("definitely not present");
    expect((await fresh.locator("#explain").textContent())!.length).toBeLessThan(2000);
    await fresh.close();
  });

  it("fits 360 px without sideways scrolling, and keeps the chart inside its panel at 390 px", async () => {
    for (const width of [360, 390]) {
      const narrow = await open(width, 800);
      // A URL with no space or hyphen to break at, written in the verdict and the explanation.
      const longKey = `https://example.com/${"averylongpathsegment".repeat(4)}?q=${"0123456789".repeat(5)}`;
      for (const type of ["standard", "counting", "cuckoo"]) {
        await narrow.getByLabel("Filter type").selectOption(type);
        for (const [key, button] of [["a-rather-long-key-for-a-narrow-screen-https://example.com/", "Add"], [longKey, "Add"], [longKey, "Query"], [`${longKey}-never-added`, "Query"]] as const) {
          await press(narrow, key, button);
          await expect.poll(() => narrow.getByRole("status").textContent()).not.toBe("");
          const { scrollWidth, clientWidth } = await narrow.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
          expect(scrollWidth, `${button} ${key.slice(0, 30)}… to ${type} at ${width} px`).toBeLessThanOrEqual(clientWidth);
        }
      }
      for (const id of ["fpr-chart", "fill-chart"]) {
        const { chart, panel } = await narrow.evaluate((chartId) => ({
          chart: document.getElementById(chartId)!.getBoundingClientRect().right,
          panel: document.getElementById(chartId)!.closest(".panel")!.getBoundingClientRect().right,
        }), id);
        expect(chart, `${id} at ${width} px`).toBeLessThanOrEqual(panel);
      }
      await narrow.screenshot({ path: `${ARTIFACTS}page-${width}.png`, fullPage: true });
      await narrow.close();
    }
  });
});
