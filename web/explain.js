// The words under the verdict: where a key lands and why the answer is what
// it is, for bits and counters (positions) and for cuckoo buckets.
import { count, hex, percent, plural, quoted, rate } from "./format.js";
import { COUNTER_MAX } from "./limits.js";

/** A DOM element with attributes and children (strings become text). */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") element.className = value;
    else if (name.startsWith("data-")) element.dataset[name.slice(5).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = String(value);
    else element.setAttribute(name, String(value));
  }
  element.append(...children.filter((child) => child !== undefined && child !== ""));
  return element;
}

/**
 * Key `key` absent from a filter that removes keys (counting, cuckoo): it may
 * have been added and removed since, so "never added" would not be true of it.
 */
export const notInFilter = (key) => `${quoted(key)} is not in the filter (never added, or removed since)`;

/** The i-th position before scaling, as triple or double hashing makes it. */
const positionsFormula = (strategy) => (strategy === "triple" ? "h₁ + i·h₂ + i(i−1)/2·h₃" : "h₁ + i·h₂");

/**
 * Bits or counters: `cells` = [{ index, set, counter? }] in hash order; `action`
 * "add" | "query" | "remove"; `before` an add: { wasSet: how many were set, known: whether the key had been added,
 * stuck: how many counters were at COUNTER_MAX };
 * `strategy` "triple" or "double", how the positions follow from the hash.
 */
export function explainPositions({ key, cells, action, before, m, k, hashName, strategy, digest, second, fill, known, counting }) {
  // Two of the k positions may land on one cell (m of 959, k of 7: about 1 key in 45); the filter sets or counts it once, so the words count cells.
  const distinct = [...new Map(cells.map((cell) => [cell.index, cell])).values()];
  const unset = distinct.filter((cell) => !cell.set);
  const chips = el(
    "ol",
    { id: "positions", "aria-label": "Positions of the key" },
    // Each a button in its list item: a screen reader announces it as a control, and Enter and Space press it.
    ...cells.map((cell) => {
      const what = `${counting ? "counter" : "bit"} ${count(cell.index)}: ${cell.set ? "set" : "0"}`;
      return el(
        "li",
        { "data-index": cell.index, "data-state": cell.set ? "set" : "unset" },
        el("button", { type: "button", title: `${what}; click to find it`, "aria-label": `${what}; find it in the filter` }, counting ? `${count(cell.index)} ×${cell.counter}` : count(cell.index)),
      );
    }),
  );
  const scaled = `scaled into 0 … ${count(m - 1)}:`;
  // One hash (k = 1): its position is h₁ itself, with no formula over i = 0 … 0 to read.
  const onePosition = `its one position (k = 1) is h₁ itself, ${scaled}`;
  const makes = `${strategy} hashing makes its k = ${k} positions ${positionsFormula(strategy)} (i = 0 … ${k - 1}),`;
  const how = el(
    "p",
    {},
    `${quoted(key)} hashed with ${hashName} gives h₁ = `,
    el("code", {}, digest),
    ...(second === undefined
      ? [k === 1 ? `; ${onePosition}` : `; from it, ${makes} ${strategy === "triple" ? "h₂ mixed from h₁ and h₃ from h₂" : "h₂ mixed from h₁"}, each ${scaled}`]
      : [" and h₂ = ", el("code", {}, second), `, its two 64-bit halves; ${k === 1 ? onePosition : `from them, ${makes}${strategy === "triple" ? " h₃ mixed from h₂," : ""} each ${scaled}`}`]),
  );
  const word = counting ? "counter" : "bit";
  const cellCount = distinct.length;
  // "All 7 bits are set", or "All 6 bits …" of a key whose 7 positions fall on 6 bits; "Its bit is set" of one bit (k = 1).
  const allSet = cellCount === 1 ? `Its ${word} is set` : `All ${cellCount} ${word}s are set`;
  const them = cellCount === 1 ? "it" : "them";
  let why;
  if (action === "add") {
    why = counting ? `${counted("Add", "up", cellCount, before.stuck)}.` : `Add set ${cellCount === 1 ? "its bit" : "these bits"} to 1${alreadySet(key, cellCount, before)}.`;
  } else if (action === "remove") {
    // After a remove, a counter at COUNTER_MAX is one the remove left there: an unstuck one would now read less.
    const stuck = distinct.filter((cell) => cell.counter >= COUNTER_MAX).length;
    const stays = stuck === 0 ? "" : `, so ${stuck === 1 ? "it stays" : "they stay"} set`;
    why = `${counted("Remove", "down", cellCount, stuck)}${stays}; a position stays “set” while another key still counts there.`;
  } else if (unset.length > 0) {
    why = `${word === "bit" ? "Bit" : "Counter"} ${count(unset[0].index)}${unset.length > 1 ? ` and ${plural(unset.length - 1, "other")}` : ""} ${unset.length > 1 ? "are" : "is"} 0. ` +
      (counting
        ? `While ${quoted(key)} is in the filter, each of its counters stays above 0, so ${notInFilter(key)}.`
        : `Adding ${quoted(key)} would have set ${unset.length > 1 ? "them" : "it"}, so it was definitely never added.`);
  } else if (known) {
    why = `${allSet}, as adding ${quoted(key)} left ${them}.`;
  } else {
    const absent = counting ? notInFilter(key) : `${quoted(key)} was never added`;
    const stuck = counting ? distinct.filter((cell) => cell.counter >= COUNTER_MAX).length : 0;
    // A counter that reached its maximum stops counting, so removes leave it set: other keys' adds, or removes it ignored, keep it above 0.
    why = stuck > 0
      ? `${allSet}, yet ${absent}: other keys set ${them}, or kept ${them} set through removes: ${stuck === cellCount ? (cellCount === 1 ? "it" : "all of them") : `${stuck} of them`} reached ${COUNTER_MAX} and stopped counting, so removes no longer count ${stuck === 1 ? "it" : "them"} down. A false positive.`
      : `${allSet}, yet ${absent}: other keys set ${them}. With ${percent(fill)} of the ${word}s set, ` +
        `a key never added finds all ${k} set about ${rate(fill ** k)} of the time (the fill to the power k).`;
  }
  return [how, chips, el("p", {}, sharedCells(cells, word) + why)];
}

/** "Its 7 positions fall on 6 bits (bit 490 twice). ", or "" when every position has a cell of its own. */
function sharedCells(cells, word) {
  const times = new Map();
  for (const { index } of cells) times.set(index, (times.get(index) ?? 0) + 1);
  if (times.size === cells.length) return "";
  const repeats = [...times].filter(([, n]) => n > 1).map(([index, n]) => `${word} ${count(index)} ${n === 2 ? "twice" : `${n} times`}`);
  return `Its ${cells.length} positions fall on ${plural(times.size, word)} (${repeats.join(", ")}). `;
}

/**
 * What an add or remove did to a key's `cellCount` counters, `stuck` of which
 * were at COUNTER_MAX: the filter no longer counts those up or down (so a
 * remove cannot clear a counter another key needs), and the words say so.
 */
function counted(action, direction, cellCount, stuck) {
  if (stuck === 0) return `${action} counted ${cellCount === 1 ? "its counter" : `each of these ${cellCount} counters`} ${direction} by one`;
  const moved = stuck === cellCount ? "none" : `${cellCount - stuck} of these ${plural(cellCount, "counter")}`;
  const left = stuck === cellCount ? (cellCount === 1 ? "its counter" : `all ${cellCount}`) : `the other ${stuck === 1 ? "one" : stuck}`;
  return `${action} counted ${moved} ${direction} by one: ${left} reached ${COUNTER_MAX} and stopped counting`;
}

/** Which of an added key's `cellCount` bits were 1 before, and who set them: the key itself when it had been added, else other keys. */
function alreadySet(key, cellCount, { wasSet, known }) {
  if (wasSet === 0) return "";
  const all = cellCount === 1 ? "it was" : `all ${cellCount} were`;
  if (known) return ` (${all} 1 already: ${quoted(key)} had been added before, and set ${cellCount === 1 ? "it" : "them"} itself)`;
  if (wasSet >= cellCount) return ` (${all} 1 already, set by other keys: until this add, ${quoted(key)} was a false positive)`;
  return ` (${wasSet} of them were 1 already, set by other keys)`;
}

/** Cuckoo: the key's fingerprint, its two buckets and their slots (`slots`: the table). */
export function explainBuckets({ key, fingerprint, buckets, slots, fingerprintBits, action, stored, found, known }) {
  const digits = fingerprintBits / 4;
  const distinct = [...new Set(buckets)];
  const boxes = el(
    "div",
    { id: "positions", class: "buckets", "aria-label": "The key's two candidate buckets" },
    ...distinct.map((bucket, which) => {
      const match = [0, 1, 2, 3].filter((j) => slots[bucket * 4 + j] === fingerprint);
      return el(
        "div",
        {
          class: "bucket",
          tabindex: 0,
          role: "button",
          "aria-label": `bucket ${count(bucket)}: ${plural(match.length, "copy", "copies")} of the fingerprint; find it in the filter`,
          "data-bucket": bucket,
          "data-index": bucket * 4,
          "data-state": match.length > 0 ? "set" : "unset",
          title: "click to find it",
        },
        el("div", { class: "bucket-name" }, `bucket ${count(bucket)}${distinct.length > 1 ? (which === 0 ? " (b₁)" : " (b₂)") : " (b₁ = b₂)"}`),
        el(
          "div",
          { class: "slots" },
          ...[0, 1, 2, 3].map((j) => {
            const value = slots[bucket * 4 + j];
            return el("span", { class: `slot${value ? " filled" : ""}${value === fingerprint ? " match" : ""}`, "data-slot": bucket * 4 + j }, value ? hex(value, digits).slice(2) : "—");
          }),
        ),
      );
    }),
  );
  const how = el(
    "p",
    {},
    `${quoted(key)} has the ${fingerprintBits}-bit fingerprint `,
    el("code", {}, hex(fingerprint, digits)),
    ` and may live in bucket b₁ = ${count(buckets[0])} or b₂ = b₁ XOR hash(fingerprint) = ${count(buckets[1])}:`,
  );
  let why;
  // Every slot holding it: a key added twice has two copies, and the one just stored need not be the first.
  const where = found.map((slot) => `bucket ${count(Math.floor(slot / 4))}, slot ${slot % 4}`).join(" and ");
  if (action === "add" && stored) why = found.length > 1 ? `Add stored another copy of the fingerprint; its ${found.length} copies now sit in ${where}.` : `Add stored the fingerprint; it now sits in ${where}.`;
  else if (action === "add" && found.length >= distinct.length * 4) {
    why = `Add was refused: every slot of ${distinct.length > 1 ? "both buckets" : "its bucket"} holds this fingerprint already, ${found.length} copies of ${quoted(key)}, the most one key can have. Remove a copy to add it again.`;
  } else if (action === "add") why = `Neither bucket had room, even after moving other fingerprints: the filter is full.`;
  else if (action === "remove") why = `Remove deleted one copy of the fingerprint from these buckets.`;
  else if (found.length === 0) why = `The fingerprint is in neither bucket, so ${notInFilter(key)}.`;
  else if (known) why = `The fingerprint is in ${where}: probably present, and indeed it was added.`;
  else why = `The fingerprint is in ${where}, yet ${notInFilter(key)}: another key has the same fingerprint and shares the bucket. A false positive.`;
  return [how, boxes, el("p", {}, why)];
}
