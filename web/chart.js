// A small chart of the false-positive rate as n grows: the formula as a line,
// the rates measured on random probes as dots.

export function drawChart(canvas, { theory, points, nMax }) {
  const context = canvas.getContext("2d");
  const { width, height } = canvas;
  const pad = { left: 44, right: 10, top: 10, bottom: 24 };
  context.clearRect(0, 0, width, height);
  const xMax = Math.max(1, nMax);
  const samples = Array.from({ length: 101 }, (_, i) => (i / 100) * xMax);
  const yMax = Math.max(0.001, ...samples.map(theory), ...points.map((p) => p.rate)) * 1.1;
  const px = (n) => pad.left + (n / xMax) * (width - pad.left - pad.right);
  const py = (rate) => height - pad.bottom - (rate / yMax) * (height - pad.top - pad.bottom);
  context.strokeStyle = "#8a93a0";
  context.beginPath();
  context.moveTo(pad.left, pad.top);
  context.lineTo(pad.left, height - pad.bottom);
  context.lineTo(width - pad.right, height - pad.bottom);
  context.stroke();
  context.fillStyle = "#5a6472";
  context.font = "11px system-ui, sans-serif";
  context.fillText(`${(yMax * 100).toPrecision(2)}%`, 2, pad.top + 8);
  context.fillText("0", pad.left - 12, height - pad.bottom);
  context.fillText(`n = ${Math.round(xMax).toLocaleString("en-US")}`, width - 90, height - 6);
  context.strokeStyle = "#2c7fb8";
  context.lineWidth = 2;
  context.beginPath();
  samples.forEach((n, i) => (i === 0 ? context.moveTo(px(n), py(theory(n))) : context.lineTo(px(n), py(theory(n)))));
  context.stroke();
  context.fillStyle = "#c0392b";
  for (const p of points) {
    context.beginPath();
    context.arc(px(p.n), py(p.rate), 3, 0, 2 * Math.PI);
    context.fill();
  }
}
