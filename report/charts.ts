// The charts of a load sweep, as SVG written into the HTML report (no script, no network): the
// latency percentiles and the held-rule rate against the steps. d3-scale picks the domains and the
// ticks, d3-shape draws the lines; the axes are their ticks written out.
import { scaleLinear, scalePoint } from 'd3-scale';
import { line } from 'd3-shape';
import type { LoadReport, LoadStepReport, Percentiles } from './load.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const W = 520;
const H = 300;
const M = { top: 16, right: 150, bottom: 44, left: 56 };
const COLORS = ['#1f6feb', '#b3261e', '#17692f', '#c77c02', '#6f42c1', '#0a7f8c', '#8a8a8a'];

interface Series {
  name: string;
  /** One value per step (undefined: none at that step). */
  values: (number | undefined)[];
  dashed?: boolean;
}

/** One chart: a line per series over the steps, with its axes, ticks and legend. */
function chart(id: string, title: string, steps: readonly LoadStepReport[], series: readonly Series[], y: { label: string; max?: number; format: (v: number) => string }): string {
  const xLabel = steps.some((s) => s.rate) ? 'arrivals a second' : 'requests in flight';
  const names = steps.map((s) => String(s.concurrency ?? s.rate ?? s.label));
  const x = scalePoint<string>()
    .domain(names)
    .range([M.left, W - M.right])
    .padding(0.3);
  const top = Math.max(1, y.max ?? Math.max(0, ...series.flatMap((s) => s.values.filter((v): v is number => v !== undefined))));
  const ys = scaleLinear()
    .domain([0, top])
    .nice()
    .range([H - M.bottom, M.top]);
  const draw = line<[string, number | undefined]>()
    .defined(([, v]) => v !== undefined)
    .x(([n]) => x(n)!)
    .y(([, v]) => ys(v!));
  const grid = ys
    .ticks(5)
    .map((t) => `<line x1="${M.left}" x2="${W - M.right}" y1="${ys(t)}" y2="${ys(t)}" stroke="#e5e5e5"/><text x="${M.left - 6}" y="${ys(t)}" dy="0.32em" text-anchor="end">${esc(y.format(t))}</text>`)
    .join('');
  const ticks = names
    .map((n) => `<line x1="${x(n)}" x2="${x(n)}" y1="${H - M.bottom}" y2="${H - M.bottom + 5}" stroke="#555"/><text x="${x(n)}" y="${H - M.bottom + 18}" text-anchor="middle">${esc(n)}</text>`)
    .join('');
  const lines = series
    .map((s, i) => {
      const color = COLORS[i % COLORS.length];
      const points = names.map((n, j) => [n, s.values[j]] as [string, number | undefined]);
      const dots = points
        .filter(([, v]) => v !== undefined)
        .map(([n, v]) => `<circle data-point="${esc(s.name)}" cx="${x(n)}" cy="${ys(v!)}" r="3" fill="${color}"><title>${esc(`${s.name} at ${n}: ${y.format(v!)}`)}</title></circle>`)
        .join('');
      const legend = `<g transform="translate(${W - M.right + 12},${M.top + 8 + i * 18})"><line x2="18" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="4 3"' : ''}/><text x="24" dy="0.32em">${esc(s.name)}</text></g>`;
      return `<path data-series="${esc(s.name)}" d="${draw(points) ?? ''}" fill="none" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="4 3"' : ''}/>${dots}${legend}`;
    })
    .join('');
  return `<figure class="chart"><svg data-chart="${id}" role="img" aria-label="${esc(title)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-size="11" font-family="system-ui,sans-serif">
<title>${esc(title)}</title>${grid}<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#555"/>${ticks}
<text x="${(M.left + W - M.right) / 2}" y="${H - 6}" text-anchor="middle">${esc(xLabel)}</text><text transform="translate(14,${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(y.label)}</text>${lines}</svg><figcaption>${esc(title)}</figcaption></figure>`;
}

const stat = (steps: readonly LoadStepReport[], metric: 'ttft' | 'e2e' | 'ttfb' | 'itl', which: keyof Omit<Percentiles, 'count'>) => steps.map((s) => s[metric]?.[which]);

/** The latency percentiles (time to first content token, and end to end; p50 and p99) at each step. */
export function latencyChart(load: LoadReport): string {
  const steps = load.steps.filter((s) => s.label !== 'alone');
  const series: Series[] = [
    { name: 'ttft p50', values: stat(steps, 'ttft', 'p50') },
    { name: 'ttft p99', values: stat(steps, 'ttft', 'p99'), dashed: true },
    { name: 'e2e p50', values: stat(steps, 'e2e', 'p50') },
    { name: 'e2e p99', values: stat(steps, 'e2e', 'p99'), dashed: true },
    { name: 'itl p50', values: stat(steps, 'itl', 'p50') },
  ].filter((s) => s.values.some((v) => v !== undefined));
  return chart('latency', 'Latency percentiles (ms) against the load', steps, series, { label: 'ms', format: (v) => (v >= 1000 ? `${v / 1000}s` : String(v)) });
}

/** The share of judged answers that held, at each step: every rule together, and each rule an answer broke. */
export function heldChart(load: LoadReport): string {
  const steps = load.steps.filter((s) => s.label !== 'alone');
  const share = (pick: (s: LoadStepReport) => { held: number; broken: number }[]) =>
    steps.map((s) => {
      const counts = pick(s);
      const judged = counts.reduce((n, c) => n + c.held + c.broken, 0);
      return judged ? (100 * counts.reduce((n, c) => n + c.held, 0)) / judged : undefined;
    });
  const broken = [
    ...new Set(
      steps.flatMap((s) =>
        Object.entries(s.rules)
          .filter(([, c]) => c.broken)
          .map(([id]) => id),
      ),
    ),
  ];
  const series: Series[] = [
    { name: 'every rule', values: share((s) => Object.values(s.rules)) },
    ...broken.slice(0, COLORS.length - 1).map((id) => ({ name: id, values: share((s) => (s.rules[id] ? [s.rules[id]] : [])), dashed: true })),
  ];
  return chart('held', 'Answers that held each rule (%) against the load', steps, series, { label: '% held', max: 100, format: (v) => `${v}%` });
}
