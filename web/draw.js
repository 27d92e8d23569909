// Draws a filter's cells on a canvas: bits, counters or cuckoo slots, with
// the last key's positions marked. One ImageData pass, so 1,000,000 cells
// stay quick; no DOM node per cell.

const GREEN = [30, 158, 62];
const RED = [211, 51, 51];
const EMPTY = [226, 230, 236];

/** Layout of `cells` square cells of `size` px in rows of `columns`. */
export function layout(cells, size, width) {
  const columns = Math.max(1, Math.floor(width / size));
  return { size, columns, rows: Math.ceil(cells / columns) };
}

/** Centre of cell `index` in canvas pixels. */
export function cellCenter(grid, index) {
  return { x: (index % grid.columns) * grid.size + grid.size / 2, y: Math.floor(index / grid.columns) * grid.size + grid.size / 2 };
}

/**
 * Paints cells: colorOf(i) gives [r, g, b] for cell i; `marks` maps a cell
 * index to "set" or "unset" (drawn as rings so they show at any zoom);
 * labelOf(i), when cells are large enough, gives text for the cell.
 */
export function paint(canvas, grid, cells, colorOf, marks, labelOf) {
  const { size, columns, rows } = grid;
  canvas.width = columns * size;
  canvas.height = Math.max(1, rows * size);
  const context = canvas.getContext("2d");
  const image = context.createImageData(canvas.width, canvas.height);
  const pixels = image.data;
  const gap = size >= 6 ? 1 : 0; // a 1 px gutter once cells are big enough to see one
  for (let i = 0; i < cells; i++) {
    const [r, g, b] = colorOf(i);
    const x0 = (i % columns) * size;
    const y0 = Math.floor(i / columns) * size;
    for (let y = y0; y < y0 + size - gap; y++) {
      let at = (y * canvas.width + x0) * 4;
      for (let x = 0; x < size - gap; x++, at += 4) {
        pixels[at] = r;
        pixels[at + 1] = g;
        pixels[at + 2] = b;
        pixels[at + 3] = 255;
      }
    }
  }
  context.putImageData(image, 0, 0);
  if (labelOf && size >= 16) {
    context.font = `${Math.floor(size * 0.5)}px ui-monospace, monospace`;
    context.textAlign = "center";
    context.textBaseline = "middle";
    context.fillStyle = "#10161f";
    for (let i = 0; i < cells; i++) {
      const text = labelOf(i);
      if (text) {
        const { x, y } = cellCenter(grid, i);
        context.fillText(text, x, y);
      }
    }
  }
  for (const [index, state] of marks) {
    const { x, y } = cellCenter(grid, index);
    context.strokeStyle = state === "set" ? "#0b5d1e" : "#8b0000";
    context.lineWidth = 2;
    context.beginPath();
    context.arc(x, y, Math.max(size * 0.75, 5), 0, 2 * Math.PI);
    context.stroke();
  }
}

export const colors = { GREEN, RED, EMPTY };
