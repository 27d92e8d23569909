// The bloomkit page: a filter from the library's browser build (the same wasm
// core), the bits a key sets, verdicts, bulk keys and live statistics.
import { BloomFilter, CountingBloomFilter, CuckooFilter, DEFAULT_HASH, falsePositiveRateFor, hashNames, hashBits, optimal } from "/dist/index.js";
import { cellCenter, colors, layout, paint } from "./draw.js";
import { drawChart } from "./chart.js";

const $ = (id) => document.getElementById(id);
/** The page draws at most this many cells. */
const MAX_CELLS = 1_000_000;
/** Random probes behind the measured false-positive rate. */
const PROBES = 10_000;

const state = {
  filter: undefined,
  type: "standard",
  /** How often each key was added less removed: the page's exact record, to tell a false positive from a true one. */
  exact: new Map(),
  /** Measured rates as n grew. */
  history: [],
  /** The last key shown: its cells and how to mark them. */
  marks: new Map(),
  grid: undefined,
};

// --- Controls --------------------------------------------------------------------
for (const name of hashNames.filter((n) => hashBits(n) > 32)) $("hash").add(new Option(name, name, name === DEFAULT_HASH, name === DEFAULT_HASH));
for (const input of document.querySelectorAll('input[name="sizing"]')) input.addEventListener("change", syncSizing);
for (const id of ["n", "p", "m", "k", "type"]) $(id).addEventListener("input", showDerived);
$("type").addEventListener("change", () => {
  syncSizing();
  create();
});
$("hash").addEventListener("change", create);
$("create").addEventListener("click", create);
$("add").addEventListener("click", add);
$("query").addEventListener("click", query);
$("remove").addEventListener("click", remove);
$("add-lines").addEventListener("click", () => addBulk($("bulk").value.split(/\r?\n/).filter((line) => line.length > 0)));
$("add-random").addEventListener("click", () => addBulk(randomKeys(Number($("random-count").value), "key")));
$("zoom").addEventListener("input", drawCells);
$("key").addEventListener("keydown", (event) => {
  if (event.key === "Enter") add();
});
addEventListener("resize", drawCells);

function sizing() {
  return document.querySelector('input[name="sizing"]:checked').value;
}

function syncSizing() {
  const cuckoo = $("type").value === "cuckoo";
  if (cuckoo) document.querySelector('input[name="sizing"][value="np"]').checked = true;
  for (const input of document.querySelectorAll('input[name="sizing"]')) input.disabled = cuckoo && input.value === "mk";
  $("remove").hidden = $("type").value === "standard";
  document.querySelector(".sizing-np").hidden = sizing() !== "np";
  document.querySelector(".sizing-mk").hidden = sizing() !== "mk";
  showDerived();
}

/** The parameters the controls ask for, or an error message. */
function parameters() {
  const type = $("type").value;
  if (sizing() === "mk") return { type, m: Number($("m").value), k: Number($("k").value) };
  const n = Number($("n").value);
  const p = Number($("p").value);
  return { type, n, p, ...(type === "cuckoo" ? {} : optimal({ n, p })) };
}

function showDerived() {
  try {
    const { type, n, p, m, k } = parameters();
    $("derived").textContent =
      type === "cuckoo" ? `cuckoo: buckets of 4, fingerprints sized from p (see the statistics)`
      : sizing() === "np" ? `m = ${m.toLocaleString("en-US")} bits, k = ${k}: p = ${p.toPrecision(4)} at n = ${n}`
      : `p at n = 100: ${(falsePositiveRateFor(100, m, k) * 100).toPrecision(3)}%`;
  } catch (error) {
    $("derived").textContent = error.message;
  }
}

// --- Filter --------------------------------------------------------------------
function create() {
  const hash = $("hash").value;
  let filter;
  try {
    const { type, n, p, m, k } = parameters();
    if (type !== "cuckoo" && m > MAX_CELLS) throw new RangeError(`m = ${m.toLocaleString("en-US")} bits; the page draws at most ${MAX_CELLS.toLocaleString("en-US")}`);
    if (type === "standard") filter = BloomFilter.withSize(m, k, { hash });
    else if (type === "counting") filter = CountingBloomFilter.withSize(m, k, { hash });
    else filter = CuckooFilter.create(n, p, { hash });
    if (type === "cuckoo" && filter.capacity > MAX_CELLS) {
      filter.dispose();
      throw new RangeError(`${filter.capacity.toLocaleString("en-US")} slots; the page draws at most ${MAX_CELLS.toLocaleString("en-US")}`);
    }
  } catch (error) {
    verdict(error.message, "absent");
    return;
  }
  state.filter?.dispose();
  Object.assign(state, { filter, type: $("type").value, exact: new Map(), history: [], marks: new Map() });
  verdict("");
  $("positions").replaceChildren();
  refresh();
}

function key() {
  return $("key").value;
}

function remember(k) {
  state.exact.set(k, (state.exact.get(k) ?? 0) + 1);
}

function forget(k) {
  const left = (state.exact.get(k) ?? 0) - 1;
  if (left > 0) state.exact.set(k, left);
  else state.exact.delete(k);
}

/** The cells of a key: bit or counter indices, or the slots of a cuckoo key's two buckets. */
function cellsOf(k) {
  const filter = state.filter;
  if (state.type !== "cuckoo") return filter.positions(k);
  const { buckets } = filter.locate(k);
  const slots = [];
  for (const bucket of new Set(buckets)) for (let j = 0; j < 4; j++) slots.push(bucket * 4 + j);
  return slots;
}

/** Whether a cell is "set": a bit, a counter above 0, or (cuckoo) a slot holding the key's fingerprint. */
function cellIsSet(index, fingerprint) {
  if (state.type === "standard") return (state.bits[index >> 3] >> (index & 7)) & 1;
  if (state.type === "counting") return state.counters[index] > 0;
  return state.slots[index] === fingerprint;
}

function showKey(k) {
  readCells();
  const fingerprint = state.type === "cuckoo" ? state.filter.locate(k).fingerprint : undefined;
  const cells = cellsOf(k);
  state.marks = new Map(cells.map((index) => [index, cellIsSet(index, fingerprint) ? "set" : "unset"]));
  const list = $("positions");
  list.replaceChildren(
    ...cells.map((index) => {
      const item = document.createElement("li");
      const cellState = state.marks.get(index);
      item.dataset.index = String(index);
      item.dataset.state = cellState;
      if (state.grid) {
        const { x, y } = cellCenter(state.grid, index);
        item.dataset.x = String(x);
        item.dataset.y = String(y);
      }
      item.textContent = state.type === "cuckoo" ? `slot ${index}` : String(index);
      item.title = cellState === "set" ? "set" : "not set";
      return item;
    }),
  );
}

function verdict(text, kind = "") {
  const element = $("verdict");
  element.textContent = text;
  element.className = kind;
}

function add() {
  const k = key();
  if (state.type === "cuckoo" && !state.filter.add(k)) verdict("the filter is full: the key was not added", "absent");
  else {
    if (state.type !== "cuckoo") state.filter.add(k);
    remember(k);
    verdict(`added “${k}”`, "present");
  }
  record();
  refresh(k);
}

function query() {
  const k = key();
  const present = state.filter.has(k);
  if (!present) verdict("definitely not present", "absent");
  else if (state.exact.has(k)) verdict("probably present", "present");
  else verdict("false positive", "false-positive");
  refresh(k);
}

function remove() {
  const k = key();
  if (state.filter.remove(k)) {
    forget(k);
    verdict(`removed “${k}”`, "present");
  } else verdict("definitely not present: nothing removed", "absent");
  record();
  refresh(k);
}

function addBulk(keys) {
  if (keys.length === 0) return;
  const answers = state.filter.addMany(keys);
  let stored = 0;
  keys.forEach((k, i) => {
    if (state.type !== "cuckoo" || answers[i] === 1) {
      remember(k);
      stored++;
    }
  });
  verdict(`added ${stored.toLocaleString("en-US")} of ${keys.length.toLocaleString("en-US")} keys`, stored === keys.length ? "present" : "absent");
  record();
  refresh();
}

/** `count` random keys (at most 1,000,000), distinct by their index. */
function randomKeys(count, prefix) {
  const keys = new Array(Math.max(0, Math.min(count, 1_000_000)));
  for (let i = 0; i < keys.length; i++) keys[i] = `${prefix}-${Math.random().toString(36).slice(2)}-${i}`;
  return keys;
}

// --- Statistics ----------------------------------------------------------------------
/** The rate measured now on random keys never added. */
function measuredRate() {
  const probes = randomKeys(PROBES, "probe").filter((k) => !state.exact.has(k));
  let hits = 0;
  for (const hit of state.filter.hasMany(probes)) hits += hit;
  return hits / probes.length;
}

function theory(n) {
  const filter = state.filter;
  if (state.type === "cuckoo") return 1 - Math.pow(1 - 1 / (2 ** filter.fingerprintBits - 1), 2 * 4 * Math.min(1, n / filter.capacity));
  return falsePositiveRateFor(n, filter.bits, filter.hashes);
}

function record() {
  state.history.push({ n: state.exact.size, rate: measuredRate() });
}

function showStats() {
  const filter = state.filter;
  const n = state.exact.size;
  const last = state.history[state.history.length - 1];
  const rows =
    state.type === "cuckoo"
      ? [["n", n], ["slots", `${filter.capacity.toLocaleString("en-US")} (${filter.buckets.toLocaleString("en-US")} buckets of 4)`], ["fingerprint", `${filter.fingerprintBits} bits`], ["load", filter.loadFactor.toFixed(4)]]
      : [["n", n], ["m", filter.bits.toLocaleString("en-US")], ["k", filter.hashes], ["fill ratio", filter.fillRatio.toFixed(4)]];
  rows.push(["theoretical FPR", `${(theory(n) * 100).toPrecision(3)}%`]);
  rows.push(["measured FPR", last ? `${(last.rate * 100).toPrecision(3)}% on ${PROBES.toLocaleString("en-US")} random keys` : "—"]);
  $("stats").replaceChildren(
    ...rows.flatMap(([name, value]) => {
      const dt = document.createElement("dt");
      dt.textContent = name;
      const dd = document.createElement("dd");
      dd.textContent = String(value);
      dd.dataset.stat = name;
      return [dt, dd];
    }),
  );
  const capacity = state.type === "cuckoo" ? filter.capacity : Math.max(1, (filter.bits / filter.hashes) * Math.LN2);
  drawChart($("fpr-chart"), { theory, points: state.history, nMax: Math.max(capacity, n) });
}

// --- Cells ------------------------------------------------------------------------------
/** Copies what the canvas shows out of the filter. */
function readCells() {
  const filter = state.filter;
  if (state.type === "standard") state.bits = filter.bitArray();
  else if (state.type === "counting") state.counters = filter.counterValues();
  else state.slots = filter.entries();
}

function drawCells() {
  const filter = state.filter;
  if (!filter) return;
  readCells();
  const cells = state.type === "cuckoo" ? filter.capacity : filter.bits;
  const size = Number($("zoom").value);
  const width = Math.max(200, $("bits").parentElement.clientWidth - 4);
  state.grid = layout(cells, size, width);
  const green = colors.GREEN;
  let colorOf;
  let labelOf;
  if (state.type === "standard") colorOf = (i) => ((state.bits[i >> 3] >> (i & 7)) & 1 ? green : colors.EMPTY);
  else if (state.type === "counting") {
    colorOf = (i) => {
      const c = state.counters[i];
      return c === 0 ? colors.EMPTY : [green[0], Math.max(90, 200 - c * 8), green[2]];
    };
    labelOf = (i) => (state.counters[i] ? String(state.counters[i]) : "");
  } else {
    colorOf = (i) => (state.slots[i] ? green : colors.EMPTY);
    labelOf = (i) => (state.slots[i] ? state.slots[i].toString(16) : "");
  }
  paint($("bits"), state.grid, cells, colorOf, state.marks, labelOf);
  $("zoom-note").textContent = `${cells.toLocaleString("en-US")} ${state.type === "cuckoo" ? "slots" : state.type === "counting" ? "counters" : "bits"}, ${size} px each, ${state.grid.columns} a row`;
}

function refresh(shownKey) {
  if (shownKey !== undefined) showKey(shownKey);
  drawCells();
  if (shownKey !== undefined) showKey(shownKey); // again, now that the grid is laid out
  showStats();
}

/** For tests and the console. */
window.bloomkitPage = { state, cellCenter: (index) => cellCenter(state.grid, index) };

syncSizing();
create();
document.body.dataset.ready = "true";
