// Where each cell of a filter sits on a tall virtual sheet: bits and counters
// in rows of squares, cuckoo slots in buckets of four. Only the part of the
// sheet in view is ever drawn (draw.js), so any size and any zoom works.

/** Browsers cap an element's height (Chromium near 33,554,428 px); a taller sheet scrolls proportionally instead. */
export const MAX_SCROLL_PX = 8_000_000;
/** Slots in a cuckoo bucket. */
const BUCKET_SLOTS = 4;
/** Cells this large get a 1 px gutter; smaller ones touch. */
const GUTTER_FROM = 6;
/** Cells this large carry their value as text. */
export const LABEL_FROM = 10;
/** Width of one monospace digit, as a share of the font size. */
const DIGIT_WIDTH = 0.62;

/** The font size of cell labels for cells `size` px high. */
export function labelFont(size) {
  return Math.floor(size * 0.68);
}

/**
 * The sheet for `cells` cells of `size` px in a view `width` px wide.
 * `digits`: the widest label a slot holds (cuckoo fingerprints in hex),
 * which widens cuckoo slots so a fingerprint fits.
 */
export function layout({ cells, size, width, buckets = false, digits = 0 }) {
  const gap = size >= GUTTER_FROM ? 1 : 0;
  const perUnit = buckets ? BUCKET_SLOTS : 1;
  const fit = size >= LABEL_FROM && digits > 0 ? Math.ceil(digits * labelFont(size) * DIGIT_WIDTH) + 4 : 0;
  const slotWidth = Math.max(size, fit);
  const unitGap = buckets ? (size >= GUTTER_FROM ? 4 : 1) : 0;
  const unitWidth = perUnit * slotWidth + unitGap;
  const rowHeight = size + (buckets && size >= GUTTER_FROM ? 3 : 0);
  const perRow = Math.max(1, Math.floor((width + unitGap) / unitWidth));
  const units = Math.ceil(cells / perUnit);
  const rows = Math.ceil(units / perRow);
  return { cells, size, gap, perUnit, slotWidth, unitWidth, unitGap, rowHeight, perRow, units, rows, height: rows * rowHeight, width: perRow * unitWidth - unitGap };
}

/** Cell `index`'s box on the sheet (gutter excluded). */
export function cellBox(grid, index) {
  const unit = Math.floor(index / grid.perUnit);
  const x = (unit % grid.perRow) * grid.unitWidth + (index % grid.perUnit) * grid.slotWidth;
  const y = Math.floor(unit / grid.perRow) * grid.rowHeight;
  return { x, y, w: grid.slotWidth - grid.gap, h: grid.size - grid.gap };
}

/** Bucket (or cell) `unit`'s box on the sheet. */
export function unitBox(grid, unit) {
  return { x: (unit % grid.perRow) * grid.unitWidth, y: Math.floor(unit / grid.perRow) * grid.rowHeight, w: grid.perUnit * grid.slotWidth - grid.gap, h: grid.size - grid.gap };
}

/** How tall the scrollable spacer is for a sheet seen through a view `viewHeight` px high. */
export function scrollHeight(grid, viewHeight) {
  return Math.max(viewHeight, Math.min(grid.height, MAX_SCROLL_PX));
}

/** The sheet's y at the top of the view, for a scroll position (proportional when the sheet is taller than MAX_SCROLL_PX). */
export function sheetTop(grid, scrollTop, viewHeight) {
  const room = scrollHeight(grid, viewHeight) - viewHeight;
  const sheetRoom = Math.max(0, grid.height - viewHeight);
  if (room <= 0) return 0;
  return Math.round(Math.min(1, scrollTop / room) * sheetRoom);
}

/** The scroll position that puts sheet y `top` at the top of the view (the inverse of sheetTop). */
export function scrollFor(grid, top, viewHeight) {
  const room = scrollHeight(grid, viewHeight) - viewHeight;
  const sheetRoom = Math.max(0, grid.height - viewHeight);
  if (sheetRoom <= 0) return 0;
  return (Math.min(Math.max(0, top), sheetRoom) / sheetRoom) * room;
}
