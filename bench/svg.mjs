// A small dependency-free SVG scatter chart: x linear, y logarithmic.

const escape = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;");

/** points: [{ x, y, label, highlight? }]; y > 0. */
export function scatterSvg({ title, xLabel, yLabel, points, width = 900, height = 560 }) {
  const margin = { left: 80, right: 30, top: 50, bottom: 60 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const xMax = Math.max(...points.map((p) => p.x)) * 1.08;
  const yLogMin = Math.floor(Math.log10(Math.min(...points.map((p) => p.y))));
  const yLogMax = Math.ceil(Math.log10(Math.max(...points.map((p) => p.y))));
  const px = (x) => margin.left + (x / xMax) * plotW;
  const py = (y) => margin.top + plotH - ((Math.log10(y) - yLogMin) / (yLogMax - yLogMin || 1)) * plotH;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="28" text-anchor="middle" font-size="16">${escape(title)}</text>`,
    `<line x1="${margin.left}" y1="${margin.top + plotH}" x2="${margin.left + plotW}" y2="${margin.top + plotH}" stroke="black"/>`,
    `<line x1="${margin.left}" y1="${margin.top}" x2="${margin.left}" y2="${margin.top + plotH}" stroke="black"/>`,
    `<text x="${margin.left + plotW / 2}" y="${height - 15}" text-anchor="middle">${escape(xLabel)}</text>`,
    `<text transform="translate(20 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(yLabel)}</text>`,
  ];
  for (let e = yLogMin; e <= yLogMax; e++) {
    const y = py(10 ** e);
    parts.push(`<line x1="${margin.left}" y1="${y}" x2="${margin.left + plotW}" y2="${y}" stroke="#ddd"/>`);
    parts.push(`<text x="${margin.left - 8}" y="${y + 4}" text-anchor="end">${escape(`1e${e}`)}</text>`);
  }
  const xStep = 10 ** Math.floor(Math.log10(xMax / 5));
  for (let x = 0; x <= xMax; x += xStep * Math.ceil(xMax / xStep / 8)) {
    parts.push(`<text x="${px(x)}" y="${margin.top + plotH + 18}" text-anchor="middle">${escape(x.toFixed(0))}</text>`);
  }
  // Labels: try offsets above and below the point until one overlaps no label placed so far.
  const placed = [];
  const overlaps = (box) => placed.some((b) => box.x < b.x + b.w && b.x < box.x + box.w && box.y < b.y + b.h && b.y < box.y + box.h);
  const offsets = [-6, 16, -20, 30, -34, 44, -48, 58, -62, 72];
  for (const p of [...points].sort((a, b) => a.x - b.x)) {
    const color = p.highlight ? "#c0392b" : "#2c7fb8";
    const cx = px(p.x);
    const cy = py(p.y);
    const w = 7 * String(p.label).length;
    const dy = offsets.find((o) => !overlaps({ x: cx + 6, y: cy + o - 11, w, h: 13 })) ?? offsets[0];
    placed.push({ x: cx + 6, y: cy + dy - 11, w, h: 13 });
    parts.push(`<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="4" fill="${color}"/>`);
    if (Math.abs(dy) > 10) parts.push(`<line x1="${cx.toFixed(1)}" y1="${cy.toFixed(1)}" x2="${(cx + 6).toFixed(1)}" y2="${(cy + dy - 4).toFixed(1)}" stroke="${color}" stroke-width="0.5"/>`);
    parts.push(`<text x="${(cx + 6).toFixed(1)}" y="${(cy + dy).toFixed(1)}" fill="${color}">${escape(p.label)}</text>`);
  }
  parts.push("</svg>");
  return parts.join("\n");
}

/**
 * Horizontal bars on a logarithmic axis, in groups: groups = [{ title, bars: [{ label, value, highlight? }] }], value > 0.
 * For values that span orders of magnitude (ns/key from a few to tens of thousands).
 */
export function barsSvg({ title, unit, groups, width = 960 }) {
  const bar = 14;
  const gap = 4;
  const groupGap = 28;
  const margin = { left: 330, right: 70, top: 60, bottom: 40 };
  const values = groups.flatMap((g) => g.bars.map((b) => b.value));
  const logMin = Math.floor(Math.log10(Math.min(...values)));
  const logMax = Math.ceil(Math.log10(Math.max(...values)));
  const plotW = width - margin.left - margin.right;
  const rows = groups.reduce((sum, g) => sum + g.bars.length, 0);
  const height = margin.top + margin.bottom + rows * (bar + gap) + groups.length * groupGap;
  const px = (v) => margin.left + ((Math.log10(v) - logMin) / (logMax - logMin || 1)) * plotW;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="26" text-anchor="middle" font-size="16">${escape(title)}</text>`,
  ];
  const axisBottom = height - margin.bottom;
  for (let e = logMin; e <= logMax; e++) {
    const x = px(10 ** e);
    parts.push(`<line x1="${x}" y1="${margin.top - 10}" x2="${x}" y2="${axisBottom}" stroke="#ddd"/>`);
    parts.push(`<text x="${x}" y="${axisBottom + 16}" text-anchor="middle">${escape(`${10 ** e} ${unit}`)}</text>`);
  }
  let y = margin.top;
  for (const group of groups) {
    parts.push(`<text x="10" y="${y + 4}" font-weight="bold">${escape(group.title)}</text>`);
    y += 14;
    for (const b of group.bars) {
      const color = b.highlight ? "#2c7fb8" : "#999";
      const x0 = px(10 ** logMin);
      parts.push(`<text x="${margin.left - 8}" y="${y + bar - 3}" text-anchor="end">${escape(b.label)}</text>`);
      parts.push(`<rect x="${x0}" y="${y}" width="${Math.max(1, px(b.value) - x0).toFixed(1)}" height="${bar}" fill="${color}"/>`);
      parts.push(`<text x="${(px(b.value) + 4).toFixed(1)}" y="${y + bar - 3}">${escape(b.value.toFixed(b.value < 100 ? 1 : 0))}</text>`);
      y += bar + gap;
    }
    y += groupGap - 14;
  }
  parts.push("</svg>");
  return parts.join("\n");
}
