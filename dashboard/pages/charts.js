// Charts drawn with uPlot (a small, dependency-free canvas charting library served from
// node_modules as an ES module, like Preact): stacked bars of spend per day by model, and bars by
// category (spend by key). Stacking is done here: each series is drawn as the running total of
// the ones below it, the tallest first, so each band shows its own part.
import { html, useEffect, useRef } from '/dashboard/vendor/preact-htm.js';
import uPlot from '/dashboard/vendor/uplot.js';
import { credits } from './ui.js';

/** A fixed palette, distinct in colour and in lightness (readable in grey too). */
export const PALETTE = ['#3b5bdb', '#f08c00', '#2f9e44', '#c2255c', '#1098ad', '#7048e8', '#e8590c', '#5c940d', '#868e96', '#a61e4d'];

const axisValues = (_u, vals) => vals.map((v) => credits(v).replace(' credits', ''));

/** Bars per category (x: 0..n-1 labelled with `labels`) or per day (x: epoch seconds), stacked. */
function barOptions({ width, height, series, labels, title }) {
  const bars = uPlot.paths.bars({ size: [0.7, 48], align: 0 });
  return {
    width, height, title,
    legend: { show: true, live: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: labels ? { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] } : { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] } },
    axes: [
      labels ? { values: (_u, vals) => vals.map((v) => (Number.isInteger(v) ? (labels[v] ?? '') : '')), splits: () => labels.map((_, i) => i) } : {},
      { values: axisValues, size: 60 },
    ],
    series: [{}, ...series.map((s) => ({ label: s.label, fill: s.color, stroke: s.color, width: 0, paths: bars, points: { show: false } }))],
  };
}

/** A uPlot chart in a <figure>; redrawn when `data` changes, resized with its container. */
export function BarChart({ testid, label, series, xs, labels, height = 240, caption }) {
  const box = useRef(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    // stacked: series i is drawn as the sum of series i..n-1, tallest (the total) first
    const sums = series.map((_, i) => xs.map((_, j) => series.slice(i).reduce((s, x) => s + (x.values[j] ?? 0), 0)));
    const drawn = series.map((s, i) => ({ ...s, values: sums[i] }));
    const plot = new uPlot(barOptions({ width: Math.max(280, el.clientWidth), height, series: drawn, labels }), [xs, ...sums], el);
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height }));
    observer.observe(el);
    return () => { observer.disconnect(); plot.destroy(); };
  }, [JSON.stringify([series, xs, labels])]);
  return html`<figure class="chart" data-testid=${testid} role="img" aria-label=${label}>
    <div ref=${box} class="chart-box"></div>
    ${caption && html`<figcaption class="muted">${caption}</figcaption>`}
  </figure>`;
}

/** Day strings (YYYY-MM-DD) from `from` to `to`, both included. */
export function daysBetween(from, to) {
  const out = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Rows grouped by day and model -> one series per model over every day of the range, biggest spender at the bottom. */
export function spendByDayAndModel(rows, from, to) {
  const days = daysBetween(from, to);
  const index = new Map(days.map((d, i) => [d, i]));
  const models = new Map();
  for (const r of rows) {
    if (!models.has(r.model)) models.set(r.model, { label: r.model, values: days.map(() => 0), total: 0 });
    const s = models.get(r.model);
    const i = index.get(r.day);
    if (i !== undefined) { s.values[i] += r.spend; s.total += r.spend; }
  }
  const series = [...models.values()].filter((s) => s.total !== 0).sort((a, b) => b.total - a.total || (a.label < b.label ? -1 : 1))
    .map((s, i) => ({ ...s, color: PALETTE[i % PALETTE.length] }));
  return { xs: days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000), days, series };
}
