// Paints the part of the sheet (grid.js) that is in view: one ImageData pass
// over the visible cells only, then labels, the candidate buckets and the
// marks of the last key. Cost follows the view's size, not the filter's.
import { cellBox, labelFont, LABEL_FROM, unitBox } from "./grid.js";

export const colors = {
  SET: [30, 158, 62],
  EMPTY: [226, 230, 236],
  BACKGROUND: [255, 255, 255],
};
/** Outline colours of a key's cells: set (or the slot holding its fingerprint), and not set. */
const MARK = { set: "#0a3316", unset: "#d33", match: "#0a3316" };
const CANDIDATE = "#2c7fb8";
/** Cells narrower than this get a ring around them instead of an outline, so a 1 px cell can still be found. */
const OUTLINE_FROM = 8;
const RING_RADIUS = 6;

/** ABGR word of an [r, g, b] colour, for a little-endian Uint32Array view of ImageData. */
function word([r, g, b]) {
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** One ImageData per canvas size, kept between paints: a scroll repaints many times a second. */
const images = new WeakMap();

function imageFor(canvas, context) {
  let kept = images.get(canvas);
  if (!kept || kept.image.width !== canvas.width || kept.image.height !== canvas.height) {
    const image = context.createImageData(canvas.width, canvas.height);
    kept = { image, pixels: new Uint32Array(image.data.buffer) };
    images.set(canvas, kept);
  }
  return kept;
}

/**
 * Paints the view: `top` is the sheet's y at the canvas's top edge.
 * look.colorOf(i) → [r, g, b]; look.labelOf(i) → text or "" (drawn when cells
 * are large enough), look.labelColorOf(i) → CSS colour; look.marks: cell →
 * "set" | "unset" | "match"; look.frames: units (buckets) to outline.
 */
export function paint(canvas, grid, top, look) {
  const { width, height } = canvas;
  const context = canvas.getContext("2d");
  const { image, pixels } = imageFor(canvas, context);
  pixels.fill(word(colors.BACKGROUND));
  const firstRow = Math.max(0, Math.floor(top / grid.rowHeight));
  const lastRow = Math.min(grid.rows - 1, Math.floor((top + height - 1) / grid.rowHeight));
  const firstCell = firstRow * grid.perRow * grid.perUnit;
  const endCell = Math.min(grid.cells, (lastRow + 1) * grid.perRow * grid.perUnit);
  let lastColor;
  let lastWord = 0;
  const { perRow, perUnit, unitWidth, slotWidth, rowHeight, cells } = grid;
  const cellWidth = slotWidth - grid.gap;
  const cellHeight = grid.size - grid.gap;
  // Row by row, without a box object per cell: at zoom 1 a view holds about 700,000 cells.
  for (let row = firstRow; row <= lastRow; row++) {
    const y0 = Math.max(0, row * rowHeight - top);
    const y1 = Math.min(height, row * rowHeight - top + cellHeight);
    let index = row * perRow * perUnit;
    for (let unit = 0; unit < perRow && index < cells; unit++) {
      for (let slot = 0; slot < perUnit && index < cells; slot++, index++) {
        const color = look.colorOf(index);
        if (color !== lastColor) {
          lastColor = color;
          lastWord = word(color);
        }
        const x0 = unit * unitWidth + slot * slotWidth;
        const x1 = Math.min(width, x0 + cellWidth);
        if (x1 - x0 === 1) for (let y = y0; y < y1; y++) pixels[y * width + x0] = lastWord;
        else for (let y = y0; y < y1; y++) pixels.fill(lastWord, y * width + x0, y * width + x1);
      }
    }
  }
  context.putImageData(image, 0, 0);

  if (look.labelOf && grid.size >= LABEL_FROM) {
    context.font = `${labelFont(grid.size)}px ui-monospace, Menlo, Consolas, monospace`;
    context.textAlign = "center";
    context.textBaseline = "middle";
    for (let i = firstCell; i < endCell; i++) {
      const text = look.labelOf(i);
      if (!text) continue;
      const box = cellBox(grid, i);
      context.fillStyle = look.labelColorOf ? look.labelColorOf(i) : "#10161f";
      context.fillText(text, box.x + box.w / 2, box.y - top + box.h / 2 + 0.5);
    }
  }

  // Labelled cells get a thin outline, so it does not cover the text.
  const labelled = look.labelOf && grid.size >= LABEL_FROM;
  context.lineWidth = 2;
  for (const unit of look.frames ?? []) {
    const box = unitBox(grid, unit);
    if (box.y - top > height || box.y - top + box.h < 0) continue;
    context.strokeStyle = CANDIDATE;
    context.strokeRect(box.x - 1.5, box.y - top - 1.5, box.w + 3, box.h + 3);
  }
  for (const [index, kind] of look.marks ?? []) {
    const box = cellBox(grid, index);
    const y = box.y - top;
    if (y > height + RING_RADIUS || y + box.h < -RING_RADIUS) continue;
    context.strokeStyle = MARK[kind];
    context.beginPath();
    context.lineWidth = labelled ? 1 : 2;
    if (box.w >= OUTLINE_FROM && labelled) context.rect(box.x + 0.5, y + 0.5, box.w - 1, box.h - 1);
    else if (box.w >= OUTLINE_FROM) context.rect(box.x + 1, y + 1, box.w - 2, box.h - 2);
    else context.arc(box.x + box.w / 2, y + box.h / 2, RING_RADIUS, 0, 2 * Math.PI);
    context.stroke();
  }
}
