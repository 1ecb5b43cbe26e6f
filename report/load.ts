// The latency profile of a load sweep: per step, percentiles of the times each answer took, the
// rates, and how many answers held each rule. The JSON report carries it as `load`; the pretty,
// markdown and HTML reporters show it as a table (and the HTML one as charts, report/charts.ts).
import type { LatencyHistogram } from '../engine/check.js';

type Metric = 'ttfb' | 'ttft' | 'itl' | 'e2e';
export const METRICS: readonly Metric[] = ['ttfb', 'ttft', 'itl', 'e2e'];

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Samples they were taken from. */
  count: number;
}

/** How many answers of a step held a rule, broke it, or could not be judged by it. */
export interface RuleCount {
  held: number;
  broken: number;
  unjudged: number;
}

export interface LoadStepReport {
  /** `alone`, `concurrency 4`, `rate 10/s`. */
  label: string;
  concurrency?: number;
  rate?: number;
  durationMs: number;
  /** Under --start-at: the Unix instant (ms) the step was to begin at, the same in every process of the sweep. */
  scheduledAt?: number;
  /** Under --start-at: how long after that instant it began (the step before drained late, or the answers alone took longer). */
  startedLateMs?: number;
  /** Requests sent, refused ones sent again included. */
  requests: number;
  /** Most requests in flight at once (a sweep's own; the answers alone: 1). */
  peakInFlight: number;
  /** 2xx answers (whole or not: the rules judge that). */
  served: number;
  /** 429 and 503: waited out and sent again, never failed. */
  refused: number;
  /** Another error status, no answer at all (a closed connection), or a stream ended by an error event. */
  failed: number;
  /** No first byte, or no end, within --timeout; or a body silent past the idle limit. */
  timedOut: number;
  /** Time to the status line (the first byte of the answer), ms. */
  ttfb?: Percentiles;
  /** Time to the first content token (a streamed answer's first event with content or a tool call), ms. */
  ttft?: Percentiles;
  /** Time between two content events of a stream, ms. */
  itl?: Percentiles;
  /** Time to the last byte, ms. */
  e2e?: Percentiles;
  /** Completion tokens of the served answers (usage, else counted events) per second of the step. */
  outputTokensPerSecond: number;
  requestsPerSecond: number;
  /** failed + timed out, of the requests. */
  errorRate: number;
  /** refused, of the requests. */
  refusalRate: number;
  /** The request that took the longest, and how long. */
  slowest?: { label: string; ms: number };
  /** By check id. */
  rules: Record<string, RuleCount>;
  /** The samples the percentiles were taken from, in buckets: what merges reports of several processes. */
  histograms: Partial<Record<Metric, LatencyHistogram>>;
}

export interface LoadReport {
  /** `closed`: N in flight at each step; `open`: Poisson arrivals at a rate. */
  mode: 'closed' | 'open';
  model: string;
  /** The mix each step cycles through. */
  workload: { kind: string; label: string; stream: boolean }[];
  /** The answers alone first, then each step of the sweep. */
  steps: LoadStepReport[];
  /** Rules that held alone and broke at a later step: the finding load adds to a run. */
  breaksUnderLoad: { check: string; brokeAt: string; held: number; of: number }[];
  /** The objectives it was held to (--slo), as given: a merge holds the merged steps to them. */
  slo: string[];
  /** Reports of several processes merged into this one (docs/load.md). */
  merged?: number;
  /** The embedded mock's pace, in words, where the sweep loaded it (no --base-url): the latencies
   * are that pace's, and every reporter says so beside them. */
  pace?: string;
}

/** Where the sweep loaded the embedded mock: what its latencies measure, in one sentence. */
export function paceNote(load: LoadReport): string | undefined {
  return load.pace === undefined
    ? undefined
    : `The embedded mock answered at a pace of its own (${load.pace}): these latencies measure that pace and this machine, not a server; --base-url URL loads yours.`;
}

/** Nearest-rank percentiles of a histogram's samples, each the value its bucket stands for (within
 * the bucket's width, 1%); the max as it was. */
export function percentiles(h: LatencyHistogram | undefined): Percentiles | undefined {
  if (!h?.count) return undefined;
  const buckets = Object.entries(h.buckets)
    .map(([i, n]) => [Number(i), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const at = (q: number) => {
    const rank = Math.max(1, Math.ceil(q * h.count));
    let seen = 0;
    for (const [i, n] of buckets) if ((seen += n) >= rank) return Math.min(h.max, Math.expm1(i * Math.log(h.base)));
    return h.max;
  };
  const round = (n: number) => Math.round(n * 10) / 10;
  return { p50: round(at(0.5)), p90: round(at(0.9)), p99: round(at(0.99)), max: round(h.max), count: h.count };
}

/** The histograms of one metric from several processes, added bucket by bucket. */
export function mergeHistograms(hs: readonly (LatencyHistogram | undefined)[]): LatencyHistogram | undefined {
  const present = hs.filter((h): h is LatencyHistogram => !!h?.count);
  if (!present.length) return undefined;
  // Keyed by what a report read from a file says: no key reaches a prototype.
  const buckets: Record<string, number> = Object.create(null);
  for (const h of present) {
    if (h.base !== present[0].base) throw new Error(`histograms of bases ${h.base} and ${present[0].base} do not merge`);
    for (const [i, n] of Object.entries(h.buckets)) buckets[i] = (buckets[i] ?? 0) + n;
  }
  return { base: present[0].base, buckets, count: present.reduce((n, h) => n + h.count, 0), max: Math.max(...present.map((h) => h.max)) };
}

/** The rules that held on every answer alone and broke at a later step, with the first such step. */
export function breaksUnderLoad(steps: readonly LoadStepReport[]): LoadReport['breaksUnderLoad'] {
  const [alone, ...sweep] = steps;
  if (!alone) return [];
  const out: LoadReport['breaksUnderLoad'] = [];
  for (const [id, count] of Object.entries(alone.rules)) {
    if (count.broken || !count.held) continue;
    const step = sweep.find((s) => s.rules[id]?.broken);
    if (step) out.push({ check: id, brokeAt: step.label, held: step.rules[id].held, of: step.rules[id].held + step.rules[id].broken });
  }
  return out;
}

const ms = (p?: Percentiles) => (p ? `${fmt(p.p50)} / ${fmt(p.p90)} / ${fmt(p.p99)} / ${fmt(p.max)}` : '-');
const fmt = (n: number) => (n >= 100 ? String(Math.round(n)) : n.toFixed(1));
const pct = (x: number) => `${(x * 100).toFixed(x && x < 0.001 ? 2 : 1)}%`;

/** The profile as rows of cells (a header first): what the pretty and markdown reporters print. */
export function profileRows(load: LoadReport): string[][] {
  return [
    ['step', 'requests', 'req/s', 'out tok/s', 'errors', 'refused', 'ttfb ms p50/p90/p99/max', 'ttft ms p50/p90/p99/max', 'itl ms p50/p90/p99/max', 'e2e ms p50/p90/p99/max'],
    ...load.steps.map((s) => [
      s.label,
      String(s.requests),
      s.requestsPerSecond.toFixed(1),
      s.outputTokensPerSecond.toFixed(0),
      pct(s.errorRate),
      pct(s.refusalRate),
      ms(s.ttfb),
      ms(s.ttft),
      ms(s.itl),
      ms(s.e2e),
    ]),
  ];
}

/** Per rule, held of judged at each step (`12/12`, `9/12`), a rule per row: the rules any answer broke first. */
export function ruleRows(load: LoadReport): string[][] {
  const ids = [...new Set(load.steps.flatMap((s) => Object.keys(s.rules)))];
  const broken = (id: string) => load.steps.some((s) => s.rules[id]?.broken);
  ids.sort((a, b) => Number(broken(b)) - Number(broken(a)));
  return [
    ['rule', ...load.steps.map((s) => s.label)],
    ...ids.map((id) => [
      id,
      ...load.steps.map((s) => {
        const c = s.rules[id];
        return c && c.held + c.broken ? `${c.held}/${c.held + c.broken}` : '-';
      }),
    ]),
  ];
}

/** What each latency column measures: said wherever a table shows them. */
export const METRIC_MEANINGS: Readonly<Record<Metric, string>> = {
  ttfb: 'time to first byte: to the status line of the answer',
  ttft: 'time to first token: to the first event of a stream with content, a refusal or a tool call',
  itl: 'inter-token latency: between two such events of a stream (a chunk of several tokens is one)',
  e2e: 'end to end: to the last byte of the answer',
};

/** Per step, what became of its requests and how fast they went: the first half of the profile. */
export function rateRows(load: LoadReport): string[][] {
  return profileRows(load).map((r) => r.slice(0, 6));
}

/** Per step, each latency as `p50 / p90 / p99 / max` in ms under the metric's name: the second half. */
export function latencyRows(load: LoadReport): string[][] {
  return [['step', ...METRICS], ...load.steps.map((s) => [s.label, ...METRICS.map((m) => ms(s[m]))])];
}

/** Rows as aligned text columns. */
export function columns(rows: string[][], indent = '  '): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => indent + r.map((cell, i) => (i ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  '));
}

/** Rows as aligned columns within `width`: where they would be wider, the columns after the first
 * are shared out evenly among as few tables as fit, each repeating the first column, one under the
 * other. */
export function fittedColumns(rows: string[][], width: number): string[] {
  const rest = rows[0].map((_, i) => i).slice(1);
  const table = (cols: number[]) => columns(rows.map((r) => [r[0], ...cols.map((k) => r[k])]));
  for (let n = 1; n < rest.length; n++) {
    const size = Math.ceil(rest.length / n);
    const groups = Array.from({ length: Math.ceil(rest.length / size) }, (_, g) => rest.slice(g * size, (g + 1) * size));
    const tables = groups.map(table);
    if (tables.every((t) => t.every((l) => l.length <= width))) return tables.flatMap((t, i) => [...(i ? [''] : []), ...t]);
  }
  return rest.flatMap((k, i) => [...(i ? [''] : []), ...table([k])]);
}
