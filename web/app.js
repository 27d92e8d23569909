// The bloomkit page: a filter from the library's browser build (the same wasm
// core), the cells a key maps to and why, verdicts, bulk keys, and the fill
// and false-positive rate beside their formulas as keys are added.
import { BloomFilter, CountingBloomFilter, CuckooFilter, DEFAULT_HASH, falsePositiveRateFor, fingerprintBitsFor, hash, hashBits, hashNames, optimal } from "/dist/index.js";
import { layout, cellBox, scrollFor, scrollHeight, sheetTop } from "./grid.js";
import { colors, paint } from "./draw.js";
import { drawChart } from "./chart.js";
import { count, hex, percent, perKey, plural, quoted, rate } from "./format.js";
import { explainBuckets, explainPositions, el, notInFilter } from "./explain.js";
import { OWN_SETTINGS, presets } from "./presets.js";
import { COUNTER_MAX, CUCKOO_LOAD, MAX_CELLS, MAX_HASHES, MAX_KEYS_KEPT, MAX_RATE, MIN_CELLS, MIN_RATE, SLOTS } from "./limits.js";

const $ = (id) => document.getElementById(id);
/** m: the bits of a standard filter, the counters of a counting one (whose `bits` counts the memory they take). */
const cellsOf = (filter) => (filter.counters !== undefined && typeof filter.counters === "number" ? filter.counters : filter.bits);
/** Random keys never added, behind the measured false-positive rate. */
const PROBES = 10_000;
/** Most random keys one click adds. */
const MAX_RANDOM = 1_000_000;
/** The tallest the cell view gets, in px (and at most 70% of the window). */
const VIEW_HEIGHT = 560;
/** Counter colours from 1 (light) to the 4-bit maximum COUNTER_MAX (dark); counters of 5 and up get white text. */
const COUNTER_LIGHT = [160, 218, 174];
const COUNTER_DARK = [12, 92, 36];
const COUNTER_WHITE_FROM = 5;
const SLOT_FILLED = [180, 220, 190];

const counterColors = Array.from({ length: COUNTER_MAX + 1 }, (_, c) => {
  if (c === 0) return colors.EMPTY;
  const t = (c - 1) / (COUNTER_MAX - 1);
  return COUNTER_LIGHT.map((light, i) => Math.round(light + (COUNTER_DARK[i] - light) * t));
});

const state = {
  filter: undefined,
  type: "standard",
  /** How often each key was added less removed: the page's exact record, to tell a false positive from a true one. */
  exact: new Map(),
  /** The n the filter was sized for. */
  sizedFor: 0,
  /** Measured rates as n grew. */
  history: [],
  /** The last key shown: its cells, how to mark them, and (cuckoo) its candidate buckets. */
  marks: new Map(),
  frames: [],
  /** A copy of the filter's cells, read after each change. */
  bits: undefined,
  counters: undefined,
  slots: undefined,
  grid: undefined,
  /** Cuckoo adds that failed since the filter was made. */
  failedAdds: 0,
};

// --- Controls --------------------------------------------------------------------
// The fields offer the limits the checks below apply.
$("n").max = String(MAX_CELLS);
$("p").min = String(MIN_RATE);
$("p").max = String(MAX_RATE);
$("k").max = String(MAX_HASHES);
$("m").min = String(MIN_CELLS);
$("m").max = String(MAX_CELLS);
$("random-count").max = String(MAX_RANDOM);
for (const preset of presets) $("preset").add(new Option(preset.title, preset.id));
$("preset").add(new Option(OWN_SETTINGS.title, OWN_SETTINGS.id));
for (const name of hashNames.filter((n) => hashBits(n) > 32)) $("hash").add(new Option(name, name, name === DEFAULT_HASH, name === DEFAULT_HASH));
for (const input of document.querySelectorAll('input[name="sizing"]')) input.addEventListener("change", syncSizing);
for (const id of ["n", "p", "m", "k", "type"]) $(id).addEventListener("input", showDerived);
$("preset").addEventListener("change", () => usePreset($("preset").value));
/** The sizing picked before a cuckoo filter (sized from n and p only) was chosen: it comes back with another type. */
let sizingForOtherTypes = "np";
$("type").addEventListener("change", () => {
  const before = sizing();
  // Back from a cuckoo filter, m and k directly (if that was picked) are used again, not the n and p fields.
  if ($("type").value === "cuckoo") sizingForOtherTypes = before;
  else if (state.type === "cuckoo") document.querySelector(`input[name="sizing"][value="${sizingForOtherTypes}"]`).checked = true;
  syncSizing();
  // A type the filter cannot be made as leaves the sizing as it was, with the filter in use.
  if (!create()) {
    document.querySelector(`input[name="sizing"][value="${before}"]`).checked = true;
    syncSizing();
  } else leavePreset();
});
$("hash").addEventListener("change", createFromControls);
$("create").addEventListener("click", createFromControls);
$("add").addEventListener("click", add);
$("query").addEventListener("click", query);
$("remove").addEventListener("click", remove);
$("add-lines").addEventListener("click", () => addBulk($("bulk").value.split(/\r?\n/).filter((line) => line.length > 0)));
$("add-random").addEventListener("click", () => {
  let wanted;
  try {
    wanted = wholeNumber("random-count", 1, MAX_RANDOM);
  } catch (error) {
    verdict(error.message, "absent");
    return;
  }
  addBulk(randomKeys(wanted, "key"));
});
$("zoom").addEventListener("input", drawCells);
/**
 * Enter pressed to act, not the Enter that picks an input method's candidate
 * (a key typed in Japanese or Chinese): Chromium sends that one as "Enter" with
 * isComposing, Safari as "Enter" with only the legacy keyCode 229 to tell.
 */
const isEnter = (event) => event.key === "Enter" && !event.isComposing && event.keyCode !== 229;
$("key").addEventListener("keydown", (event) => {
  if (isEnter(event)) add();
});
// Enter in a size field makes the filter, as New filter does; in Random keys it adds them.
for (const id of ["n", "p", "m", "k"]) {
  $(id).addEventListener("keydown", (event) => {
    if (isEnter(event)) createFromControls();
  });
}
$("random-count").addEventListener("keydown", (event) => {
  if (isEnter(event)) $("add-random").click();
});
// A position (or bucket) above the view scrolls the view to it, by click or by Enter.
$("explain").addEventListener("click", (event) => {
  const target = event.target.closest("[data-index]");
  if (target) reveal(Number(target.dataset.index));
});
$("explain").addEventListener("keydown", (event) => {
  // A position's button presses itself (a click); a bucket is a focusable box.
  const target = event.target.closest("[data-index]");
  if (target && !event.target.closest("button") && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    reveal(Number(target.dataset.index));
  }
});
let pending = 0;
const view = document.querySelector(".cells-view");
view.addEventListener("scroll", () => {
  pending ||= requestAnimationFrame(() => {
    pending = 0;
    paintView();
  });
});
addEventListener("resize", () => {
  drawCells();
  showStats();
});

function sizing() {
  return document.querySelector('input[name="sizing"]:checked').value;
}

/** What m counts in a filter of `type`: bits, or (counting) counters. */
const cellWord = (type) => (type === "counting" ? "counters" : "bits");
/** "1 bit", "960 bits", "1 counter": a count of cells in good grammar. */
const cellsText = (value, type) => plural(value, type === "counting" ? "counter" : "bit");

/** A cuckoo filter takes no fnv1a_64 (its low bits, the bucket, crowd short keys into few buckets): not offered for one. */
function syncHashes(cuckoo) {
  const fnv = $("hash").querySelector('option[value="fnv1a_64"]');
  fnv.disabled = cuckoo;
  if (cuckoo && $("hash").value === "fnv1a_64") $("hash").value = DEFAULT_HASH;
}

function syncSizing() {
  const cuckoo = $("type").value === "cuckoo";
  syncHashes(cuckoo);
  document.querySelector('label[for="m"]').textContent = `m (${cellWord($("type").value)})`;
  if (cuckoo) document.querySelector('input[name="sizing"][value="np"]').checked = true;
  for (const input of document.querySelectorAll('input[name="sizing"]')) input.disabled = cuckoo && input.value === "mk";
  document.querySelector(".sizing-np").hidden = sizing() !== "np";
  document.querySelector(".sizing-mk").hidden = sizing() !== "mk";
  showDerived();
}

/** The label of control `id` as the page shows it: messages name fields so. */
function labelOf(id) {
  return document.querySelector(`label[for="${id}"]`).textContent;
}

/** What a number field holds, for a message: “1.5”, or why there is nothing (a number field reads text it cannot parse, such as 1e400, as ""). */
function got(input) {
  if (input.value !== "") return `got “${input.value}”`;
  return input.validity.badInput ? "got a number too large, or not a number" : "got nothing";
}

/** Field `id` as a whole number from `low` to `high` (throws a RangeError naming the field otherwise). */
function wholeNumber(id, low, high) {
  const value = Number($(id).value);
  if ($(id).value !== "" && Number.isInteger(value) && value >= low && value <= high) return value;
  throw new RangeError(`${labelOf(id)} must be a whole number from ${count(low)} to ${count(high)}, ${got($(id))}`);
}

/** The parameters the controls ask for (throws a RangeError naming the field). */
function parameters() {
  const type = $("type").value;
  if (sizing() === "mk") {
    const m = wholeNumber("m", MIN_CELLS, MAX_CELLS);
    const k = wholeNumber("k", 1, MAX_HASHES);
    // The n at which such a filter is half full, the most it is meant to hold: m·ln 2 / k.
    return { type, m, k, sizedFor: Math.max(1, Math.round((m * Math.LN2) / k)) };
  }
  // Whole: the page counts keys one by one, and a filter holds no more keys than the page's largest has cells.
  const n = wholeNumber("n", 1, MAX_CELLS);
  const p = Number($("p").value);
  if (!($("p").value !== "" && p >= MIN_RATE && p <= MAX_RATE)) throw new RangeError(`${labelOf("p")} must be between 0 and 1, e.g. 0.01, ${got($("p"))}`);
  if (type === "cuckoo") {
    try {
      fingerprintBitsFor(p);
    } catch {
      // The library's own message names its argument, not this field.
      throw new RangeError(`${labelOf("p")} = ${$("p").value} is too small for a cuckoo filter: its fingerprints have at most 32 bits, enough for p down to about ${rate((2 * SLOTS) / 2 ** 32)}`);
    }
    // The library's sizing, worked out before the filter is made: a table too large would take seconds and gigabytes only to be refused.
    const slots = CuckooFilter.sizeFor(n, p).capacity;
    if (slots > MAX_CELLS) throw new RangeError(`${labelOf("n")} = ${count(n)} needs a cuckoo filter of ${count(slots)} slots (buckets of 4, a power of two of them, with room for n at ${percent(CUCKOO_LOAD)} full); the page makes filters of at most ${count(MAX_CELLS)} slots`);
    return { type, n, p, sizedFor: n };
  }
  const sized = optimalFor(n, p);
  if (sized.m > MAX_CELLS) {
    throw new RangeError(`${labelOf("n")} = ${count(n)} at ${labelOf("p")} = ${$("p").value} needs m = ${count(sized.m)} ${cellWord(type)}; the page makes filters of at most ${count(MAX_CELLS)} (the library goes far beyond)`);
  }
  return { type, n, p, sizedFor: n, ...sized };
}

/** The library's m and k for n keys at rate p, refused when k is more than the page takes in either sizing. */
function optimalFor(n, p) {
  let sized;
  try {
    sized = optimal({ n, p });
  } catch {
    // n and p are checked: what is left is a k past the library's own limit, more than the page's too.
  }
  if (sized && sized.k <= MAX_HASHES) return sized;
  const needs = sized ? `k = ${sized.k}` : "hundreds of";
  throw new RangeError(`${labelOf("p")} = ${$("p").value} needs ${needs} hash functions at ${labelOf("n")} = ${count(n)}; the page uses at most ${MAX_HASHES}, as for ${labelOf("k")}: give a larger p`);
}

/** The formula's fill of m cells at n keys, 1 − e^(−kn/m): about half at the n that m and k are meant for, more when k is large for m (8 bits, 32 hashes: 98% at 1 key). */
const fillAt = (n, m, k) => -Math.expm1((-k * n) / m);

function showDerived() {
  try {
    const { type, n, p, m, k, sizedFor } = parameters();
    $("derived").textContent =
      type === "cuckoo" ? `cuckoo: buckets of 4 fingerprints, fingerprints sized from p (see “How full, how wrong”)`
      : sizing() === "np" ? `m = ${cellsText(m, type)} (${perKey(m / n)} per key), k = ${k}: p = ${rate(p)} at n = ${count(n)}`
      : `meant for about ${plural(sizedFor, "key")} (${percent(fillAt(sizedFor, m, k))} of the ${cellWord(type)} set); p there: ${rate(falsePositiveRateFor(sizedFor, m, k))}`;
  } catch (error) {
    $("derived").textContent = error.message;
  }
}

/** The preset (or OWN_SETTINGS) the filter in use was made from: what the list shows again when a pick cannot be made. */
let presetInUse = presets[0].id;

/** A filter made from the controls is no longer the preset's: its title and story (keys it says were added) give way. */
function leavePreset() {
  $("preset").value = presetInUse = OWN_SETTINGS.id;
  $("story").textContent = OWN_SETTINGS.story;
}

/** New filter, a new hash, or "Your own settings" in the list: a filter from the controls, no longer the preset's. */
function createFromControls() {
  if (create()) leavePreset();
}

function usePreset(id) {
  const preset = presets.find((candidate) => candidate.id === id);
  if (!preset) {
    // "Your own settings" that cannot be made: the list goes back to the preset whose filter, story and keys stay.
    if (!create()) $("preset").value = presetInUse;
    else leavePreset();
    return;
  }
  $("type").value = preset.type;
  document.querySelector('input[name="sizing"][value="np"]').checked = true;
  // A type picked after the preset keeps its n and p, not m and k picked before it (and a cuckoo filter).
  sizingForOtherTypes = "np";
  $("n").value = String(preset.n);
  $("p").value = String(preset.p);
  $("hash").value = DEFAULT_HASH;
  $("story").textContent = preset.story;
  syncSizing();
  if (!create()) return;
  presetInUse = id;
  const sample = preset.sample();
  if (sample.length > 0) addBulk(sample);
  $("key").value = preset.key;
  query();
}

// --- Filter --------------------------------------------------------------------
/** Makes the filter the controls describe; false (and says why) when they describe none. */
function create() {
  const hashName = $("hash").value;
  let filter;
  let sizedFor;
  try {
    const wanted = parameters();
    const { type, n, p, m, k } = wanted;
    sizedFor = wanted.sizedFor;
    if (type === "standard") filter = BloomFilter.withSize(m, k, { hash: hashName });
    else if (type === "counting") filter = CountingBloomFilter.withSize(m, k, { hash: hashName });
    else filter = CuckooFilter.create(n, p, { hash: hashName });
  } catch (error) {
    filter?.dispose(); // made, then refused: freed now, not whenever the garbage collector gets to it
    keepFilterInUse(error.message);
    return false;
  }
  state.filter?.dispose();
  Object.assign(state, { filter, type: $("type").value, sizedFor, exact: new Map(), history: [], marks: new Map(), frames: [], failedAdds: 0 });
  // Only counting and cuckoo filters can remove a key.
  $("remove").hidden = state.type === "standard";
  view.scrollTop = 0;
  verdict("");
  $("explain").replaceChildren(el("p", { class: "note" }, "Add or query a key to see the cells it maps to, and why the answer is what it is."));
  readCells();
  record();
  refresh();
  return true;
}

/**
 * After a filter could not be made: the one in use stays, so the type and hash
 * controls go back to it (a type picked but not made would show its Remove
 * button and its sizing for a filter that has neither), and the verdict says why.
 */
function keepFilterInUse(message) {
  const filter = state.filter;
  if (!filter || ($("type").value === state.type && $("hash").value === filter.hash)) {
    verdict(message, "absent");
    return;
  }
  $("type").value = state.type;
  $("hash").value = filter.hash;
  syncSizing();
  verdict(`${message}. The filter in use stays: ${$("type").selectedOptions[0].text}, hash ${filter.hash}.`, "absent");
}

/** The key field, or undefined (and a verdict saying so) when it is empty. */
function key() {
  const value = $("key").value;
  if (value.length === 0) {
    verdict("Type a key first: an empty key is refused.", "absent");
    return undefined;
  }
  return value;
}

/**
 * Whether the record of added keys has room for `keys` (those it holds
 * already take none, and a key given twice takes one); when not, says so and
 * nothing is added.
 */
function roomToKeep(keys) {
  let more = 0;
  for (const k of keys) if (!state.exact.has(k)) more++;
  if (state.exact.size + more <= MAX_KEYS_KEPT) return true;
  // Over the limit as counted: count each new key once (a set of a million keys costs time only here).
  more = new Set(keys.filter((k) => !state.exact.has(k))).size;
  if (state.exact.size + more <= MAX_KEYS_KEPT) return true;
  verdict(
    `nothing was added: the page keeps every key it adds, to tell false positives from keys it holds, and keeps at most ${count(MAX_KEYS_KEPT)}; ` +
      `it holds ${count(state.exact.size)}, and ${more === 1 ? "this key is" : `${count(more)} of these keys are`} new. Make a new filter to go on`,
    "absent",
  );
  return false;
}

function remember(k) {
  state.exact.set(k, (state.exact.get(k) ?? 0) + 1);
}

function forget(k) {
  const left = (state.exact.get(k) ?? 0) - 1;
  if (left > 0) state.exact.set(k, left);
  else state.exact.delete(k);
}

/** Whether bit or counter `index` is set in the copy last read. */
function isSet(index) {
  if (state.type === "standard") return ((state.bits[index >> 3] >> (index & 7)) & 1) === 1;
  return state.counters[index] > 0;
}

/**
 * Shows where key `k` lands and why, after `action` ("add", "query", "remove");
 * for an add, `before`: how many of its positions were set, whether the page had added it already
 * and (counting) how many of its counters were stuck at COUNTER_MAX, and `stored`: whether a cuckoo filter took it.
 */
function showKey(k, action, before = { wasSet: 0, known: false, stuck: 0 }, stored = true) {
  const filter = state.filter;
  if (state.type === "cuckoo") {
    const { fingerprint, buckets } = filter.locate(k);
    const found = [];
    for (const bucket of new Set(buckets)) for (let j = 0; j < SLOTS; j++) if (state.slots[bucket * SLOTS + j] === fingerprint) found.push(bucket * SLOTS + j);
    state.marks = new Map(found.map((slot) => [slot, "match"]));
    state.frames = [...new Set(buckets)];
    $("explain").replaceChildren(...explainBuckets({ key: k, fingerprint, buckets, slots: state.slots, fingerprintBits: filter.fingerprintBits, action, stored, found, known: state.exact.has(k) }));
    return;
  }
  const positions = filter.positions(k);
  const cells = positions.map((index) => ({ index, set: isSet(index), counter: state.counters?.[index] }));
  state.marks = new Map(cells.map((cell) => [cell.index, cell.set ? "set" : "unset"]));
  state.frames = [];
  const full = BigInt(hash(filter.hash, k, filter.seed));
  const digest = hex(BigInt.asUintN(64, full), 16);
  // A 128-bit hash's upper half is h₂ itself (a 64-bit hash's h₂ is mixed from h₁ inside the filter, as h₃ from h₂): shown, with the mixes, the positions can be worked out.
  const second = hashBits(filter.hash) === 128 ? hex(full >> 64n, 16) : undefined;
  $("explain").replaceChildren(
    ...explainPositions({ key: k, cells, action, before, m: cellsOf(filter), k: filter.hashes, hashName: filter.hash, strategy: filter.strategy, digest, second, fill: filter.fillRatio, known: state.exact.has(k), counting: state.type === "counting" }),
  );
}

function verdict(text, kind = "") {
  const element = $("verdict");
  element.textContent = text;
  element.className = kind;
}

/** Key `k`'s bits or counters, each once (two of its positions may share one); none in a cuckoo filter. */
function cellsOfKey(k) {
  return state.type === "cuckoo" ? [] : [...new Set(state.filter.positions(k))];
}

/** How many of the key's cells are set now (before an add): a cell two of its positions share counts once. */
function positionsSet(k) {
  return cellsOfKey(k).filter(isSet).length;
}

/** How many of the key's counters are at COUNTER_MAX now (before an add): stuck there, an add or remove leaves them as they are. */
function countersStuck(k) {
  return state.type === "counting" ? cellsOfKey(k).filter((index) => state.counters[index] >= COUNTER_MAX).length : 0;
}

/** Copies of key `k` in its cuckoo buckets, and the most they hold: 8, or 4 when its two buckets are one. */
function copiesOf(k) {
  return { copies: state.filter.count(k), most: new Set(state.filter.locate(k).buckets).size * SLOTS };
}

/** "its two buckets of 4 slots", or "its one bucket of 4 slots" (both candidates the same bucket). */
const bucketsOf = (most) => (most > SLOTS ? `its two buckets of ${SLOTS} slots` : `its one bucket of ${SLOTS} slots`);

/**
 * Whether a cuckoo filter refused key `k` for its own copies, which fill its
 * buckets, rather than for want of room: the filter may be nearly empty.
 */
function atCopyLimit(k) {
  // The page's record first: a key it stored fewer than 4 times cannot fill even one bucket (and a million refused random keys stay quick).
  if ((state.exact.get(k) ?? 0) < SLOTS) return false;
  const { copies, most } = copiesOf(k);
  return copies >= most;
}

function add() {
  const k = key();
  if (k === undefined) return;
  if (!roomToKeep([k])) return;
  const before = { wasSet: positionsSet(k), known: state.exact.has(k), stuck: countersStuck(k) };
  const stored = state.type !== "cuckoo" || state.filter.tryAdd(k);
  if (!stored) {
    const { copies, most } = copiesOf(k);
    if (copies >= most) {
      verdict(`${quoted(k)} was not added: the filter holds it ${copies} times already, the most one key can be (${bucketsOf(most)}); the filter itself is ${percent(state.filter.loadFactor)} full`, "absent");
    } else {
      state.failedAdds++;
      verdict(`the filter is full: ${quoted(k)} was not added`, "absent");
    }
  } else {
    if (state.type !== "cuckoo") state.filter.add(k);
    remember(k);
    if (overfull()) verdict(`added ${quoted(k)}, but the filter is overfull: see the warning`, "warn");
    else verdict(`added ${quoted(k)}`, "present");
  }
  changed();
  showKey(k, "add", before, stored);
  refresh();
}

function query() {
  const k = key();
  if (k === undefined) return;
  const present = state.filter.has(k);
  if (!present) verdict("definitely not present", "absent");
  else if (state.exact.has(k)) verdict("probably present", "present");
  else verdict("false positive", "false-positive");
  showKey(k, "query");
  refresh();
}

function remove() {
  const k = key();
  if (k === undefined) return;
  if (!state.exact.has(k) && state.filter.has(k)) {
    // Removing a key the filter does not hold would clear another key's cells and make it a false negative.
    verdict(`${notInFilter(k)}; the filter only thinks it is (a false positive), and removing it would break other keys, so nothing was removed`, "false-positive");
  } else if (state.filter.remove(k)) {
    forget(k);
    verdict(`removed ${quoted(k)}`, "present");
    changed();
    showKey(k, "remove");
    refresh();
    return;
  } else verdict("definitely not present: nothing removed", "absent");
  showKey(k, "query");
  refresh();
}

/**
 * Keys a cuckoo filter is offered at a time. Once one is refused for want of
 * room, the rest are not offered: each would make up to 500 moves and undo
 * them, and a million random keys into a table for 100 froze the page for
 * about 9 s.
 */
const CUCKOO_BULK_KEYS = 1024;

function addBulk(keys) {
  if (keys.length === 0) {
    verdict("no keys to add: type some, one per line", "absent");
    return;
  }
  if (!roomToKeep(keys)) return;
  let stored = 0;
  let tried = 0;
  // Refused keys: for want of room, or because the filter holds that key as often as one key can be.
  let full = 0;
  let limited = 0;
  if (state.type !== "cuckoo") {
    state.filter.addMany(keys);
    keys.forEach(remember);
    stored = tried = keys.length;
  } else {
    // A cuckoo filter that is full stores what fits and says which: tryAddMany, a piece at a time.
    while (tried < keys.length && full === 0) {
      const piece = keys.slice(tried, tried + CUCKOO_BULK_KEYS);
      const answers = state.filter.tryAddMany(piece);
      // In order, so that a key refused for its copies counts those stored before it in the same piece.
      piece.forEach((k, i) => {
        if (answers[i] === 1) {
          remember(k);
          stored++;
        } else if (atCopyLimit(k)) limited++;
        else full++;
      });
      tried += piece.length;
    }
  }
  state.failedAdds += full;
  const what = `added ${count(stored)} of ${plural(keys.length, "key")}`;
  const untried = keys.length - tried;
  if (full > 0) verdict(`${what}: the filter is full${untried > 0 ? `, so the last ${count(untried)} were not offered to it` : ""}`, "absent");
  else if (limited > 0) verdict(`${what}: ${count(limited)} ${limited === 1 ? "was" : "were"} refused because the filter holds ${limited === 1 ? "that key" : "those keys"} as many times as one key can be (${2 * SLOTS} copies fill a key's two buckets); the filter itself is ${percent(state.filter.loadFactor)} full`, "absent");
  else if (overfull()) verdict(`${what}, but the filter is overfull: see the warning`, "warn");
  else verdict(what, "present");
  changed();
  state.marks = new Map();
  state.frames = [];
  $("explain").replaceChildren();
  refresh();
}

/** `count` random keys, distinct by their index. */
function randomKeys(amount, prefix) {
  const keys = new Array(amount);
  for (let i = 0; i < amount; i++) keys[i] = `${prefix}-${Math.random().toString(36).slice(2)}-${i}`;
  return keys;
}

// --- Statistics ----------------------------------------------------------------------
/**
 * Keys in the filter (as the page recorded them): distinct ones, but for a
 * cuckoo filter every copy, since a key added again takes another slot and
 * the formula's load counts slots.
 */
function keysIn() {
  return state.type === "cuckoo" ? state.filter.size : state.exact.size;
}

/** The rate measured now on random keys never added. */
function measuredRate() {
  const probes = randomKeys(PROBES, "probe").filter((k) => !state.exact.has(k));
  let hits = 0;
  for (const hit of state.filter.hasMany(probes)) hits += hit;
  return { rate: hits / probes.length, hits, probes: probes.length };
}

/** The formula's rate at n keys. */
function theory(n) {
  const filter = state.filter;
  // The library's formula at n keys (a chart's n may fall between whole numbers): a query meets the 4 slots of
  // each of its buckets, two or, when they are one (every key in a one-bucket table), one.
  if (state.type === "cuckoo") return filter.expectedFalsePositiveRate(Math.min(filter.capacity, Math.round(n)));
  return falsePositiveRateFor(n, cellsOf(filter), filter.hashes);
}

/** The slots a cuckoo query meets, as the formula's exponent: its two buckets', or one's when they are one. */
function slotsMet(filter) {
  if (filter.buckets === 1) return `${SLOTS}·load: one bucket`;
  // Past 64 buckets the keys whose two buckets are one (a fingerprint that is a multiple of the count) barely count.
  if (filter.buckets > 64) return `${2 * SLOTS}·load`;
  return `${2 * SLOTS}·load, ${SLOTS}·load for the 1 key in ${filter.buckets} whose two buckets are one`;
}

/** The formula's fill at n keys: 1 − e^(−kn/m) of the bits set, or (cuckoo) n slots of the capacity taken. */
function fillFormula(n) {
  const filter = state.filter;
  if (state.type === "cuckoo") return Math.min(1, n / filter.capacity);
  return -Math.expm1((-filter.hashes * n) / cellsOf(filter));
}

/** The fill now: bits (counters) set, or slots taken. */
function fillNow() {
  return state.type === "cuckoo" ? state.filter.loadFactor : state.filter.fillRatio;
}

/** Whether the filter holds more keys than it was sized for (or a cuckoo filter refused one). */
function overfull() {
  if (state.type === "cuckoo") return state.failedAdds > 0 || state.filter.loadFactor > CUCKOO_LOAD;
  return keysIn() > state.sizedFor;
}

function record() {
  state.history.push({ n: keysIn(), fill: fillNow(), ...measuredRate() });
}

/** After the filter changed: reads its cells and measures its rate. */
function changed() {
  readCells();
  record();
}

function showStats() {
  const filter = state.filter;
  const n = keysIn();
  const last = state.history[state.history.length - 1];
  const cuckoo = state.type === "cuckoo";
  const fill = fillNow();
  const measured = last ? `${rate(last.rate)} (${count(last.hits)} of ${count(last.probes)} random keys never added looked present)` : "—";
  const rows = cuckoo
    ? [
        ["n", "keys added (n)", n > state.exact.size ? `${count(n)}, of them ${count(state.exact.size)} distinct (a key added again takes another slot)` : count(n)],
        ["slots", "slots", `${count(filter.capacity)}: ${plural(filter.buckets, "bucket")} of 4`],
        ["fingerprint", "fingerprint", `${filter.fingerprintBits} bits`],
        // The table is a power of two of buckets, so at its n it is anywhere from about half to 95% full.
        ["fill", "load", `${percent(fill)} of slots hold a fingerprint; ${percent(state.sizedFor / filter.capacity)} will at n = ${count(state.sizedFor)}, and adds start to fail near ${percent(CUCKOO_LOAD)}`],
        ["formula", "formula", `1 − (1 − 1/(2^f − 1))^(${slotsMet(filter)}) = ${rate(theory(n))}`],
        ["measured", "measured", measured],
      ]
    : [
        ["n", "keys added (n)", `${count(n)} of the ${count(state.sizedFor)} it was sized for`],
        ["m", state.type === "counting" ? "counters (m)" : "bits (m)", n > 0 ? `${count(cellsOf(filter))} (${perKey(cellsOf(filter) / n)} per key added)` : count(cellsOf(filter))],
        ["k", "hash functions (k)", String(filter.hashes)],
        ["fill", "fill", `${percent(fill)} set; formula 1 − e^(−kn/m) = ${percent(fillFormula(n))}`],
        ["formula", "formula", `(1 − e^(−kn/m))^k = ${rate(theory(n))}`],
        ["measured", "measured", measured],
      ];
  $("stats").replaceChildren(...rows.flatMap(([id, name, value]) => [el("dt", {}, name), el("dd", { "data-stat": id }, value)]));
  // The fill as a number: percent() writes "<0.1%" and ">99.9%" for a reader, which are no CSS width (the bar stayed as it was).
  $("fill-bar").style.width = `${Math.min(1, Math.max(0, fill)) * 100}%`;
  $("fill-bar").classList.toggle("over", overfull());
  showWarning(n, fill);
  const nMax = Math.max(state.sizedFor * 1.5, n * 1.05);
  const points = (key) => state.history.map((entry) => ({ n: entry.n, value: entry[key] }));
  drawChart($("fpr-chart"), { theory, points: points("rate"), nMax, sizedFor: state.sizedFor, yTitle: "false-positive rate", height: 220 });
  drawChart($("fill-chart"), { theory: fillFormula, points: points("fill"), nMax, sizedFor: state.sizedFor, yTitle: cuckoo ? "load" : "fill", height: 150 });
}

function showWarning(n, fill) {
  const warning = $("warning");
  let text = "";
  if (state.type === "cuckoo" && state.failedAdds > 0) {
    text = `Full: ${plural(state.failedAdds, "key was", "keys were")} refused because both of their buckets were full even after moving other fingerprints. Make a new filter with a larger n.`;
  } else if (state.type === "cuckoo" && overfull()) {
    text = `Nearly full: ${percent(fill)} of slots are taken; adds will soon start to fail. Make a new filter with a larger n.`;
  } else if (overfull()) {
    // The rate this fill gives, fill^k, as the words say ("so"): the formula's rate at n is the fill's expected value's, which this filter's own fill may miss by points.
    text = `Overfull: ${plural(n, "key")} in a filter sized for ${count(state.sizedFor)}. ${percent(fill)} of its ${state.type === "counting" ? "counters" : "bits"} are set, so a key never added now looks present about ${rate(fill ** state.filter.hashes)} of the time. ` +
      `Make a new filter with n of at least ${count(n)}.`;
  }
  if (state.type === "counting" && state.filter.saturatedCounters > 0) {
    text += `${text ? " " : ""}${plural(state.filter.saturatedCounters, "counter")} reached ${COUNTER_MAX} and stopped counting; removes from them are no longer exact.`;
  }
  warning.textContent = text;
  warning.hidden = text === "";
}

// --- Cells ------------------------------------------------------------------------------
/** Copies what the view shows out of the filter. */
function readCells() {
  const filter = state.filter;
  state.bits = state.type === "standard" ? filter.bitArray() : undefined;
  state.counters = state.type === "counting" ? filter.counterValues() : undefined;
  state.slots = state.type === "cuckoo" ? filter.entries() : undefined;
}

const HEADINGS = { standard: "Bit array", counting: "Counters", cuckoo: "Buckets" };
const LEGENDS = {
  standard: "Green: a bit set to 1; grey: 0. The last key's positions are outlined (a red outline is a 0 it needs). Click a position above to scroll to it.",
  counting: "Each cell is a counter; green when above 0, darker the higher, with its value written in it. The last key's counters are outlined. Click a position above to scroll to it.",
  cuckoo: "Each box of 4 slots is a bucket. Light green slots hold a fingerprint (in hex when zoomed in); the blue frames are the last key's two candidate buckets, and the slot holding its fingerprint is solid green. Click a bucket above to scroll to it.",
};

/** Lays the sheet out for the current filter, zoom and width, then paints the view. */
function drawCells() {
  const filter = state.filter;
  if (!filter) return;
  const cuckoo = state.type === "cuckoo";
  const size = Number($("zoom").value);
  const cells = cuckoo ? filter.capacity : cellsOf(filter);
  const width = Math.max(100, view.clientWidth);
  const grid = layout({ cells, size, width, buckets: cuckoo, digits: cuckoo ? filter.fingerprintBits / 4 : state.type === "counting" ? 2 : 0 });
  // Keep the same cells at the top when the zoom or width changes.
  const firstCell = state.grid ? Math.floor(sheetTop(state.grid, view.scrollTop, view.clientHeight) / state.grid.rowHeight) * state.grid.perRow * state.grid.perUnit : 0;
  state.grid = grid;
  const viewHeight = Math.max(24, Math.min(VIEW_HEIGHT, Math.floor(innerHeight * 0.7), grid.height));
  view.style.height = `${viewHeight + 2}px`; // + the border
  const canvas = $("bits");
  canvas.width = width;
  canvas.height = viewHeight;
  view.querySelector(".spacer").style.height = `${scrollHeight(grid, viewHeight) - viewHeight}px`;
  view.scrollTop = scrollFor(grid, cellBox(grid, Math.min(firstCell, cells - 1)).y, viewHeight);
  $("cells-title").textContent = HEADINGS[state.type];
  $("cells-legend").textContent = LEGENDS[state.type];
  const what = cuckoo ? `${plural(filter.buckets, "bucket")} of 4 slots, each slot ${grid.slotWidth}×${size} px` : `${cellsText(cells, state.type)}, ${size} px each`;
  const rows = `${cuckoo ? plural(grid.perRow, "bucket") : count(grid.perRow)} a row, ${plural(grid.rows, "row")}`;
  $("zoom-note").textContent = `${what}; ${rows}${grid.height > viewHeight ? ": scroll for the rest" : ""}`;
  paintView();
}

/** Paints the part of the sheet in view. */
function paintView() {
  const grid = state.grid;
  if (!grid) return;
  const canvas = $("bits");
  const top = sheetTop(grid, view.scrollTop, canvas.height);
  const look = { marks: state.marks, frames: state.frames };
  if (state.type === "standard") {
    const bits = state.bits;
    look.colorOf = (i) => ((bits[i >> 3] >> (i & 7)) & 1 ? colors.SET : colors.EMPTY);
  } else if (state.type === "counting") {
    const counters = state.counters;
    look.colorOf = (i) => counterColors[Math.min(COUNTER_MAX, counters[i])];
    look.labelOf = (i) => (counters[i] ? String(counters[i]) : "");
    look.labelColorOf = (i) => (counters[i] >= COUNTER_WHITE_FROM ? "#fff" : "#10161f");
  } else {
    const slots = state.slots;
    const digits = state.filter.fingerprintBits / 4;
    const marks = state.marks;
    // The slot holding the last key's fingerprint is solid green, the others light.
    look.colorOf = (i) => (marks.has(i) ? colors.SET : slots[i] ? SLOT_FILLED : colors.EMPTY);
    look.labelOf = (i) => (slots[i] ? slots[i].toString(16).padStart(digits, "0") : "");
    look.labelColorOf = (i) => (marks.has(i) ? "#fff" : "#10161f");
  }
  paint(canvas, grid, top, look);
  canvas.dataset.top = String(top);
}

/** Scrolls cell `index` into the middle of the view; returns its centre and box in canvas pixels. */
function reveal(index) {
  const grid = state.grid;
  const canvas = $("bits");
  const box = cellBox(grid, index);
  view.scrollTop = scrollFor(grid, box.y + box.h / 2 - canvas.height / 2, canvas.height);
  paintView();
  const top = sheetTop(grid, view.scrollTop, canvas.height);
  view.scrollIntoView({ block: "nearest" });
  return { x: box.x + box.w / 2, y: box.y - top + box.h / 2, left: box.x, top: box.y - top, width: box.w, height: box.h };
}

function refresh() {
  drawCells();
  showStats();
}

/** For tests and the console. */
window.bloomkitPage = { state, reveal };

syncSizing();
$("story").textContent = presets[0].story;
create();
document.body.dataset.ready = "true";
