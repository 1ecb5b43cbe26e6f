// Service-level objectives of a load sweep (`--slo 'ttft_p99<2000ms'`, `--slo 'error_rate<1%'`):
// each is a result of the report, held at every step of the sweep, so that the exit code, JUnit, a
// baseline and a diff treat a breach as they treat a failed check.
import type { CheckResult, PathResult } from '../engine/check.js';
import type { LoadStepReport, Percentiles } from './load.js';

type Op = '<' | '<=' | '>' | '>=';
type Latency = 'ttfb' | 'ttft' | 'itl' | 'e2e';
type Stat = 'p50' | 'p90' | 'p99' | 'max';

export interface Slo {
  /** As given. */
  expression: string;
  /** `ttft_p99`, `error_rate`, `rps`, `output_tps`. */
  metric: string;
  op: Op;
  /** In the metric's unit: ms for a latency, a fraction for a rate, a count per second for throughput. */
  limit: number;
  /** How the limit is said: `2000 ms`, `1%`, `50/s`. */
  shown: string;
}

export class SloError extends Error {}

const LATENCY = /^(ttfb|ttft|itl|e2e)_(p50|p90|p99|max)$/;
const RATES = ['error_rate', 'refusal_rate'];
const THROUGHPUT = ['rps', 'output_tps'];
const KNOWN = 'ttfb, ttft, itl or e2e with _p50, _p90, _p99 or _max (ms or s); error_rate or refusal_rate (%); rps or output_tps (per second)';

/** `ttft_p99<2000ms`, `e2e_p50 <= 1.5s`, `error_rate<1%`, `rps>=20`; a malformed one throws SloError saying what is wrong. */
export function parseSlo(expression: string): Slo {
  const bad = (why: string) => new SloError(`--slo '${expression}': ${why}`);
  const m = /^\s*([a-z0-9_]+)\s*(<=|>=|<|>)\s*(.*?)\s*$/i.exec(expression);
  if (!m) return throwing(bad(`expected METRIC<LIMIT, METRIC>LIMIT (or <=, >=), e.g. ttft_p99<2000ms or error_rate<1%; metrics: ${KNOWN}`));
  const [, name, op, value] = m;
  const metric = name.toLowerCase();
  const number = /^(\d+(?:\.\d+)?)\s*([a-z%/]*)$/i.exec(value);
  if (!number) return throwing(bad(`the limit "${value}" is not a number with a unit`));
  const n = Number(number[1]);
  const unit = number[2].toLowerCase();
  if (LATENCY.test(metric)) {
    if (unit !== 'ms' && unit !== 's') return throwing(bad(`a latency takes ms or s, as in ${metric}${op}2000ms, not "${unit || 'no unit'}"`));
    const limit = unit === 's' ? n * 1000 : n;
    return { expression, metric, op: op as Op, limit, shown: `${limit} ms` };
  }
  if (RATES.includes(metric)) {
    if (unit !== '%') return throwing(bad(`a rate takes a percentage, as in ${metric}${op}1%, not "${unit || 'no unit'}"`));
    if (n > 100) return throwing(bad('a percentage is at most 100%'));
    return { expression, metric, op: op as Op, limit: n / 100, shown: `${n}%` };
  }
  if (THROUGHPUT.includes(metric)) {
    if (unit && unit !== '/s') return throwing(bad(`a throughput takes a number per second, as in ${metric}${op}20, not "${unit}"`));
    return { expression, metric, op: op as Op, limit: n, shown: `${n}/s` };
  }
  return throwing(bad(`unknown metric "${name}"; metrics: ${KNOWN}`));
}

function throwing(e: Error): never {
  throw e;
}

/** The metric's value at a step, or undefined where the step has none (no stream, no ttft). */
function valueAt(step: LoadStepReport, metric: string): number | undefined {
  const latency = LATENCY.exec(metric);
  if (latency) return (step[latency[1] as Latency] as Percentiles | undefined)?.[latency[2] as Stat];
  if (metric === 'error_rate') return step.errorRate;
  if (metric === 'refusal_rate') return step.refusalRate;
  if (metric === 'rps') return step.requestsPerSecond;
  return step.outputTokensPerSecond;
}

const holds = (v: number, op: Op, limit: number) => (op === '<' ? v < limit : op === '<=' ? v <= limit : op === '>' ? v > limit : v >= limit);
const shownValue = (slo: Slo, v: number) => (slo.shown.endsWith('%') ? `${(v * 100).toFixed(2)}%` : slo.shown.endsWith('ms') ? `${v} ms` : `${v.toFixed(1)}/s`);

/** Each objective as a result: a path per step of the sweep (the answers alone are not held to it),
 * failing at each step that breaches it. Level must: it is the user's own gate. */
export function sloResults(slos: readonly Slo[], steps: readonly LoadStepReport[]): CheckResult[] {
  return slos.map((slo) => {
    const paths: PathResult[] = steps.map((step) => {
      const v = valueAt(step, slo.metric);
      const base = { path: { step: step.label }, label: step.label, evidence: [], durationMs: step.durationMs };
      if (v === undefined) return { ...base, outcome: 'not-tested', message: `no ${slo.metric.split('_')[0]} was measured at this step (no streamed answer)` };
      return holds(v, slo.op, slo.limit)
        ? { ...base, outcome: 'pass', notes: [`${slo.metric} ${shownValue(slo, v)}`] }
        : { ...base, outcome: 'fail', message: `${slo.metric} is ${shownValue(slo, v)}, not ${slo.op} ${slo.shown}` };
    });
    const failing = paths.filter((p) => p.outcome === 'fail');
    const open = paths.filter((p) => p.outcome === 'not-tested');
    const outcome = failing.length ? 'fail' : open.length ? 'not-tested' : 'pass';
    const deciding = failing.length ? failing : open;
    return {
      id: `slo.${slo.metric.replace(/_/g, '-')}`,
      suite: 'slo',
      title: `${slo.metric} ${slo.op} ${slo.shown} at every step (--slo)`,
      section: '--slo',
      sections: ['--slo'],
      level: 'must',
      outcome,
      ...(deciding.length ? { message: deciding.map((p) => `[${p.label}] ${p.message}`).join('; ') } : {}),
      evidence: [],
      durationMs: steps.reduce((n, s) => n + s.durationMs, 0),
      axes: ['step'],
      paths,
    };
  });
}
