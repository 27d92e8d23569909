// A quantity as keys are added (the false-positive rate, or the fill): the
// formula as a line, what the filter measured as dots, and a dashed line at
// the n the filter was sized for. The canvas takes its panel's width; the
// legend is HTML beside it.
import { count, rate } from "./format.js";

const LINE = "#2c7fb8";
const DOT = "#c0392b";
const AXIS = "#8a93a0";
const TEXT = "#3d4654";
const PAD = { left: 66, right: 12, top: 12, bottom: 42 };
/** Points along the formula's curve. */
const SAMPLES = 120;

/** Ticks at 0, ½ and the top of an axis. */
const ticks = (max) => [0, max / 2, max];

/** The top of the keys axis for `nMax`: an even whole number, at least 2, so that its three ticks fall on the whole numbers they are labelled with. */
export const keysAxisTop = (nMax) => Math.max(2, 2 * Math.ceil(nMax / 2));

/** `theory(n)` in [0, 1]; `points`: [{ n, value }]; `yTitle`: what the y axis shows; `height` in CSS px. */
export function drawChart(canvas, { theory, points, nMax, sizedFor, yTitle, height: HEIGHT }) {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.max(200, canvas.parentElement.clientWidth);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${HEIGHT}px`;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(HEIGHT * ratio);
  const context = canvas.getContext("2d");
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, width, HEIGHT);

  const xMax = keysAxisTop(nMax);
  const samples = Array.from({ length: SAMPLES + 1 }, (_, i) => (i / SAMPLES) * xMax);
  const yMax = Math.min(1, Math.max(0.001, ...samples.map(theory), ...points.map((p) => p.value)) * 1.1);
  const plotWidth = width - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const px = (n) => PAD.left + (n / xMax) * plotWidth;
  const py = (value) => PAD.top + plotHeight - (Math.min(value, yMax) / yMax) * plotHeight;

  context.font = "11px system-ui, sans-serif";
  context.fillStyle = TEXT;
  context.strokeStyle = AXIS;
  context.lineWidth = 1;
  context.beginPath();
  context.moveTo(PAD.left, PAD.top);
  context.lineTo(PAD.left, PAD.top + plotHeight);
  context.lineTo(PAD.left + plotWidth, PAD.top + plotHeight);
  context.stroke();
  context.textAlign = "right";
  context.textBaseline = "middle";
  for (const value of ticks(yMax)) context.fillText(rate(value), PAD.left - 4, py(value));
  context.textAlign = "center";
  context.textBaseline = "top";
  ticks(xMax).forEach((n, i) => {
    context.textAlign = i === 0 ? "left" : i === 2 ? "right" : "center";
    context.fillText(count(n), px(n), PAD.top + plotHeight + 4);
  });
  context.textAlign = "center";
  context.fillText("keys added (n)", PAD.left + plotWidth / 2, HEIGHT - 14);
  context.save();
  context.translate(12, PAD.top + plotHeight / 2);
  context.rotate(-Math.PI / 2);
  context.textBaseline = "middle";
  context.fillText(yTitle, 0, 0);
  context.restore();

  if (sizedFor > 0 && sizedFor <= xMax) {
    context.strokeStyle = AXIS;
    context.setLineDash([4, 4]);
    context.beginPath();
    context.moveTo(px(sizedFor), PAD.top);
    context.lineTo(px(sizedFor), PAD.top + plotHeight);
    context.stroke();
    context.setLineDash([]);
  }

  context.strokeStyle = LINE;
  context.lineWidth = 2;
  context.beginPath();
  samples.forEach((n, i) => (i === 0 ? context.moveTo(px(n), py(theory(n))) : context.lineTo(px(n), py(theory(n)))));
  context.stroke();
  context.fillStyle = DOT;
  for (const point of points) {
    context.beginPath();
    context.arc(px(Math.min(point.n, xMax)), py(point.value), 3.5, 0, 2 * Math.PI);
    context.fill();
  }
}
