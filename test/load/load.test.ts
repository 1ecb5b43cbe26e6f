// `conformance load` as a user and a pipeline see it: the embedded mock passes; a paced mock's
// latency is measured within tolerance; SLOs gate the exit code and a malformed one is a usage
// error naming the flag; JUnit, a baseline and a diff read a load's report as they read a run's; an
// open arrival rate runs. Small steps, few requests: each sweep takes a second or two.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import { diffReports } from '../../report/diff.js';
import { renderJunit } from '../../report/junit.js';
import { renderMarkdown } from '../../report/markdown.js';
import { renderPretty } from '../../report/pretty.js';
import type { LoadProgress } from '../../report/progress.js';
import { parseSlo, SloError } from '../../report/slo.js';
import type { RawReport } from '../../report/report.js';
import { validator } from '../../schemas/index.js';
import { cli } from '../support/cli.js';
import { loadAgainstMock } from '../support/load.js';
import { mergeLoads, readSlos } from '../../suites/load/session.js';
import { UsageError } from '../../suites/session.js';

describe('conformance load', () => {
  it('passes against the embedded mock, with a JSON report of the format and the profile of every step', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'load-')), 'load.json');
    const r = await cli(['load', '--concurrency', '1,4', '--requests', '12', '--reporter', 'pretty', '--reporter', `json=${out}`, '--slo', 'error_rate<1%']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Load \(requests in flight; mock-chat-1; 10 requests in the mix\)/);
    expect(r.stdout).toMatch(/PASSED \(exit code 0\)/);
    expect(r.stderr).toMatch(/conformance: concurrency 4: 12 requests/);
    // The embedded mock is paced for a load, and the output says its latencies are that pace's.
    expect(r.stdout.replace(/\n {2}/g, ' ')).toContain(
      ' The embedded mock answered at a pace of its own (first token after 100 ms, then 200 tokens/s, each pause ±30%): these latencies measure that pace and this machine, not a server; --base-url URL loads yours.',
    );
    // The profile fits a terminal of 100 columns, and says what each latency measures.
    const section = r.stdout.slice(r.stdout.indexOf('Load ('), r.stdout.indexOf('Summary'));
    expect(section.split('\n').filter((l) => l.length > 100)).toEqual([]);
    for (const m of ['ttfb', 'ttft', 'itl', 'e2e']) expect(section).toMatch(new RegExp(`^  ${m} +\\S`, 'm'));
    expect(section).toMatch(/^ {2}itl +inter-token latency: between two such events of a stream/m);
    expect(section).toMatch(/^ {2}0 of \d+ rules broke on some answer; 0 of 1 objectives \(--slo\) failed$/m);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(validator('report')(report).errors).toEqual([]);
    expect(report.load.steps.map((s: { label: string }) => s.label)).toEqual(['alone', 'concurrency 1', 'concurrency 4']);
    expect(report.load.pace).toBe('first token after 100 ms, then 200 tokens/s, each pause ±30%');
    for (const s of report.load.steps.slice(1)) {
      expect(s.requests).toBe(12);
      expect(s.served).toBe(12);
      expect(s.e2e.count).toBe(12);
      expect(s.ttft.count).toBeGreaterThan(0);
      // Paced, tokens come apart: an inter-token latency that is not 0 at every step.
      expect(s.itl.max).toBeGreaterThan(0);
    }
    // The rules of run held on each answer, and the load suite's, each with a path per step.
    const ids = report.results.map((r: { id: string }) => r.id);
    expect(ids).toEqual(expect.arrayContaining(['chat.usage', 'stream.done-marker', 'stop.exact-prefix', 'tools.call-valid', 'structured.json-schema', 'load.ids-unique', 'slo.error-rate']));
    expect(report.results.find((r: { id: string }) => r.id === 'stream.complete').paths.map((p: { label: string }) => p.label)).toEqual(['alone', 'concurrency 1', 'concurrency 4']);
  });

  it('says, as each step starts, its counts as they grow within it: what the live line draws', async () => {
    const steps: LoadProgress[] = [];
    // Read while the sweep runs, by a timer as the line reads them.
    const seen: { label: string; done: number; inFlight: number }[] = [];
    const sample = setInterval(() => {
      const p = steps.at(-1);
      if (p) seen.push({ label: p.label, done: p.done(), inFlight: p.inFlight() });
    }, 5);
    const paced = createMock({ ...DEFAULT_CONFIG, timing: { ttft_ms: 20, tokens_per_second: 200 } });
    const report = await loadAgainstMock(paced, { onProgress: (p) => steps.push(p) }).finally(() => clearInterval(sample));
    expect(steps.map((p) => p.label)).toEqual(['alone', 'concurrency 1', 'concurrency 4']);
    expect(steps.map((p) => p.requests)).toEqual([10, 12, 12]);
    // Within the step, before its end: requests in flight, fewer answered than it sends.
    const within = seen.filter((s) => s.label === 'concurrency 4' && s.done < 12);
    expect(within.some((s) => s.inFlight > 0)).toBe(true);
    // At the end of each step its counts are the report's, and nothing is left in flight.
    report.load!.steps.forEach((s, i) => {
      expect(steps[i].done()).toBe(s.requests);
      expect(steps[i].failed()).toBe(s.failed + s.timedOut);
      expect(steps[i].inFlight()).toBe(0);
    });
  });

  it("measures a paced mock's time to first token and inter-token latency within a few percent", async () => {
    // Long enough that the client's own delays on a busy machine (a few ms) stay a few percent.
    const timing = { ttft_ms: 400, tokens_per_second: 25 };
    const report = await loadAgainstMock(createMock({ ...DEFAULT_CONFIG, timing }), { concurrency: [2], requests: 6, maxTokens: 6, slo: ['ttft_p99<1ms', 'e2e_p50<10s'] });
    const step = report.load!.steps.at(-1)!;
    // The mock sends the role chunk at ttft_ms and the first content token one token later.
    const ttft = timing.ttft_ms + 1000 / timing.tokens_per_second;
    expect(Math.abs(step.ttft!.p50 - ttft) / ttft, `ttft p50 ${step.ttft!.p50} for ${ttft}`).toBeLessThan(0.08);
    const itl = 1000 / timing.tokens_per_second;
    expect(Math.abs(step.itl!.p50 - itl) / itl, `itl p50 ${step.itl!.p50} for ${itl}`).toBeLessThan(0.1);
    expect(step.outputTokensPerSecond).toBeGreaterThan(0);
    // A server of --base-url's (this mock, at a pace of the test's) has its own latencies: no note of a pace.
    expect(report.load!.pace).toBeUndefined();
    expect(renderPretty(report, { color: false })).not.toContain('a pace of its own');
    // An objective the step breaches fails the run; one it keeps passes.
    const slo = (id: string) => report.results.find((r) => r.id === id)!;
    expect(slo('slo.ttft-p99').outcome).toBe('fail');
    expect(slo('slo.ttft-p99').message).toMatch(/^\[concurrency 2\] ttft_p99 is \d+(\.\d)? ms, not < 1 ms$/);
    expect(slo('slo.e2e-p50').outcome).toBe('pass');
    expect(report.exitCode).toBe(1);
    expect(renderJunit(report)).toMatch(/<testcase [^>]*name="slo.ttft-p99[^"]*"[^>]*>\s*<failure/);
    // Beside the rules' verdict, the objectives': no "0 rules broke" alone under a failed objective.
    expect(renderPretty(report, { color: false })).toMatch(/^ {2}0 of \d+ rules broke on some answer; 1 of 2 objectives \(--slo\) failed: slo\.ttft-p99$/m);
    expect(renderMarkdown(report)).toMatch(/^1 of 2 objectives \(`--slo`\) failed: `slo\.ttft-p99`\.$/m);
  });

  it('reads a malformed --slo as a usage error that names the flag and what is wrong', () => {
    expect(() => parseSlo('ttft_p99<2000')).toThrow(new SloError('--slo \'ttft_p99<2000\': a latency takes ms or s, as in ttft_p99<2000ms, not "no unit"'));
    expect(() => parseSlo('latency<2s')).toThrow(/unknown metric "latency"/);
    expect(() => parseSlo('error_rate=1%')).toThrow(/expected METRIC<LIMIT/);
    expect(() => parseSlo('error_rate<0.5')).toThrow(/a rate takes a percentage/);
    expect(parseSlo('e2e_p50 <= 1.5s')).toMatchObject({ metric: 'e2e_p50', op: '<=', limit: 1500 });
    expect(parseSlo('error_rate<1%')).toMatchObject({ limit: 0.01 });
    // The command reads them before the first request and exits 2 with this message.
    expect(() => readSlos(['error_rate<1%', 'ttft_p99<fast'])).toThrow(new UsageError('--slo \'ttft_p99<fast\': the limit "fast" is not a number with a unit'));
  });

  it('gates as run does: a rule broken under load fails the run, a baseline expects it, and a diff names the regression', async () => {
    const correct = await loadAgainstMock(createMock(), { concurrency: [4] });
    const cut = await loadAgainstMock(createMock(undefined, { faults: ['load-stream-cut'] }), { concurrency: [4] });
    expect(correct.exitCode).toBe(0);
    expect(cut.exitCode).toBe(1);
    expect(cut.load!.breaksUnderLoad).toEqual([expect.objectContaining({ check: 'stream.complete', brokeAt: 'concurrency 4' })]);
    expect(renderPretty(cut, { color: false })).toMatch(/breaks under load: stream\.complete held alone, broke at concurrency 4/);
    expect(renderMarkdown(cut)).toMatch(/\| stream\.complete \| 4\/4 \| \d+\/\d+ \|/);
    expect(renderJunit(cut)).toMatch(/<testcase [^>]*name="stream.complete[^"]*"[^>]*>\s*<failure/);
    const diff = diffReports(correct, cut);
    expect(diff.regression).toBe(true);
    expect(JSON.stringify(diff)).toContain('stream.complete');
    const file = join(mkdtempSync(join(tmpdir(), 'load-baseline-')), 'baseline.yaml');
    // The team's one baseline, which run --clients reads too: a client flow's entry is known here, and judges nothing.
    writeFileSync(file, 'expected:\n  - check: stream.complete\n    reason: the engine cuts streams past 2 in flight\n  - check: ai-sdk.bad-request\n    reason: the SDK reads 422\n');
    const expected = await loadAgainstMock(createMock(undefined, { faults: ['load-stream-cut'] }), { concurrency: [4], expectedFailures: file, flowIds: ['ai-sdk.bad-request'] });
    expect(expected.exitCode).toBe(0);
    expect(expected.baseline!.stale).toEqual([]);
    expect(expected.results.find((r) => r.id === 'stream.complete')!.expected).toEqual({ reason: 'the engine cuts streams past 2 in flight' });

    // Two processes that ran the sweep at once: their reports merge into one, counts and histograms added.
    const dir = mkdtempSync(join(tmpdir(), 'load-merge-'));
    writeFileSync(join(dir, 'a.json'), JSON.stringify(correct));
    writeFileSync(join(dir, 'b.json'), JSON.stringify(cut));
    const merged = mergeLoads([
      { file: 'a.json', report: correct },
      { file: 'b.json', report: cut },
    ]);
    expect(validator('report')(JSON.parse(JSON.stringify(merged))).errors).toEqual([]);
    const [a, b, m] = [correct, cut, merged].map((r) => r.load!.steps.at(-1)!);
    expect(m.label).toBe('concurrency 4 × 2 processes');
    expect(m.concurrency).toBe(8);
    expect(m.requests).toBe(a.requests + b.requests);
    expect(m.histograms.e2e!.count).toBe(a.histograms.e2e!.count + b.histograms.e2e!.count);
    expect(m.rules['stream.complete'].broken).toBe(b.rules['stream.complete'].broken);
    expect(merged.results.find((r) => r.id === 'stream.complete')!.message).toMatch(/^\[concurrency 4 × 2 processes\] process 2: \d+ of \d+ answers broke it/);
    expect(merged.exitCode).toBe(1);
    const r = await cli(['load', '--merge', join(dir, 'a.json'), join(dir, 'b.json'), '--reporter', 'markdown']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/❌ `stream\.complete` held alone, broke at concurrency 4 × 2 processes/);
  });

  it('merges rules named as the prototype names its members like any other: counted, kept, and no object altered', async () => {
    const report = await loadAgainstMock(createMock(), { concurrency: [1], requests: 4 });
    // As a report read from a file holds them (JSON.parse makes `__proto__` an own key; a literal would not).
    const crafted = '"__proto__":{"held":5,"broken":1,"unjudged":0},"constructor":{"held":7,"broken":0,"unjudged":0},"toString":{"held":3,"broken":0,"unjudged":2}';
    const text = JSON.stringify(report).replaceAll('"rules":{', `"rules":{${crafted},`);
    const read = () => JSON.parse(text) as RawReport;
    const merged = mergeLoads([
      { file: 'a.json', report: read() },
      { file: 'b.json', report: read() },
    ]);
    for (const step of merged.load!.steps) {
      expect(Object.keys(step.rules).slice(0, 3)).toEqual(['__proto__', 'constructor', 'toString']);
      expect(Object.getOwnPropertyDescriptor(step.rules, '__proto__')?.value).toEqual({ held: 10, broken: 2, unjudged: 0 });
      expect({ ...step.rules.constructor }).toEqual({ held: 14, broken: 0, unjudged: 0 });
      expect({ ...step.rules.toString }).toEqual({ held: 6, broken: 0, unjudged: 4 });
    }
    expect(({} as { held?: unknown }).held).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('held');
    // A key the reports lack is not found on a prototype either: a step without the rule has none.
    expect(merged.load!.steps[0].rules.valueOf).toBeUndefined();
    expect(renderMarkdown(merged)).not.toMatch(/NaN|undefined|\[object/);
  });

  it('sends at an open arrival rate (Poisson) as well as a closed loop', async () => {
    const report = await loadAgainstMock(createMock(), { concurrency: undefined, rate: [40], requests: 10, seed: 3 });
    expect(report.load!.mode).toBe('open');
    expect(report.load!.steps.map((s) => s.label)).toEqual(['alone', 'rate 40/s']);
    expect(report.load!.steps[1].requests).toBe(10);
    expect(report.exitCode).toBe(0);
  });
});
