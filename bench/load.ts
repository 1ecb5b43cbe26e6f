// `conformance load`'s own costs, as ratios measured side by side in one run (BENCH_ONLY=load):
//   1. the generator: requests per second of the driver against autocannon, on the same
//      non-streamed request to the mock, at the same concurrency, alternating    target >= 80%
//   2. the judging: the driver judging every answer (every rule of the run and of the load suite)
//      against the driver alone                                                    target >= 80%
//   3. the measurement: against a mock paced at a known TTFT and pace, the measured p50s   within 5%
//   4. the scale: one process (a child, its RSS its own) drives 2,000 streams at once; its peak RSS,
//      and again with twice the requests, which must not grow with them          target: no error
// The mock runs in a process of its own (bench/server.ts). Environment: BENCH_SECONDS (per measure,
// default 5), BENCH_CONNECTIONS (default 32), BENCH_LOAD_STREAMS (default 2000).
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HttpClient, limitsFor, type RequestSpec } from '../engine/http.js';
import { drive } from '../engine/load.js';
import { basicBody } from '../suites/chat.js';
import { Judge, keeperFor, Step } from '../suites/load/judge.js';
import { Redactor } from '../engine/redact.js';
import { EACH_RULES, runLoad } from '../suites/load/session.js';
import type { Item } from '../suites/load/workload.js';
import { CHAT_PATH, HEADERS, HELD_TIMING, KEY } from './fixtures.js';

const SECONDS = num('BENCH_SECONDS', 5);
const CONNECTIONS = num('BENCH_CONNECTIONS', 32);
const STREAMS = num('BENCH_LOAD_STREAMS', 2000);
const MODEL = 'mock-chat-1';

function num(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** The mock in a process of its own (paced: HELD_TIMING), on a free port. */
async function mockProcess(paced: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./server.js', import.meta.url)), paced ? ['mock', 'paced'] : ['mock'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const [m] = (await once(child, 'message')) as [{ port: number }];
  return {
    url: `http://127.0.0.1:${m.port}`,
    stop: async () => {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

interface Rate {
  perSecond: number;
  /** Client CPU per answer, µs: steadier than req/s when other jobs share the cores. */
  cpuUs: number;
  bad: number;
}

async function withAutocannon(url: string, body: string): Promise<Rate> {
  const c0 = process.cpuUsage();
  const r = await autocannon({ url: url + CHAT_PATH, method: 'POST', headers: HEADERS, body, connections: CONNECTIONS, duration: SECONDS, timeout: 10 });
  const c = process.cpuUsage(c0);
  return { perSecond: r['2xx'] / r.duration, cpuUs: (c.user + c.system) / Math.max(1, r['2xx']), bad: r.non2xx + r.errors + r.timeouts };
}

/** The driver on the same request; with `judged`, every answer goes through the load's judge. */
async function withDriver(url: string, body: string, judged: boolean): Promise<Rate> {
  const http = new HttpClient(limitsFor(10_000), undefined, { sweptDeadlines: true });
  const spec: RequestSpec = { method: 'POST', url: url + CHAT_PATH, headers: HEADERS, body };
  const item: Item = { kind: 'basic', stream: false, label: 'basic chat completion', body: JSON.parse(body), spec };
  const judge = new Judge(EACH_RULES, { model: MODEL, refs: {} }, 10_000, undefined);
  const step = new Step('bench', keeperFor(new Redactor()));
  let ok = 0;
  let bad = 0;
  const c0 = process.cpuUsage();
  try {
    const d = await drive({
      http,
      step: { concurrency: CONNECTIONS, durationMs: SECONDS * 1000 },
      next: () => spec,
      onAnswer: (_s, a, attempt) => {
        if (a.status === 200) ok++;
        else bad++;
        return judged ? judge.answer(step, item, a, attempt, true) : undefined;
      },
    });
    const c = process.cpuUsage(c0);
    if (judged) {
      const broken = [...step.rules].filter(([, t]) => t.broken).map(([id]) => id);
      if (broken.length) throw new Error(`the judge found broken rules on the correct mock: ${broken.join(', ')}`);
    }
    return { perSecond: ok / (d.elapsedMs / 1000), cpuUs: (c.user + c.system) / Math.max(1, ok), bad };
  } finally {
    await http.close();
  }
}

/** In the child: one sweep of `streams` in flight against the paced mock, then its peak RSS. */
async function child(url: string, streams: number, requests: number): Promise<void> {
  const report = await runLoad({ baseUrl: url, apiKey: KEY, concurrency: [streams], requests, maxTokens: SCALE_TOKENS, timeoutMs: 60_000 });
  const step = report.load!.steps.at(-1)!;
  process.send!({ maxRss: process.resourceUsage().maxRSS * 1024, peakInFlight: step.peakInFlight, requests: step.requests, failed: step.failed + step.timedOut, ttfb: step.ttfb?.p50 ?? NaN });
}

/** Few tokens a stream: the mock writes a frame per token, and 2,000 streams of many saturate it before the driver. */
const SCALE_TOKENS = 8;

interface Scale {
  maxRss: number;
  peakInFlight: number;
  requests: number;
  failed: number;
  /** The server's time to first byte, p50: seconds of it say the server, not the driver, is saturated. */
  ttfb: number;
  ms: number;
}

async function scale(url: string, requests: number): Promise<Scale> {
  const started = performance.now();
  const proc = fork(fileURLToPath(import.meta.url), ['child', url, String(STREAMS), String(requests)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const [m] = (await once(proc, 'message')) as [Omit<Scale, 'ms'>];
  await once(proc, 'exit');
  return { ...m, ms: performance.now() - started };
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

export async function loadBench(): Promise<void> {
  const missed: string[] = [];
  const target = (ok: boolean, what: string) => (ok ? 'met' : (missed.push(what), 'MISSED'));
  console.log(`\nload: the driver against autocannon, ${CONNECTIONS} in flight, ${SECONDS} s each, alternating (autocannon, driver, driver judging, then the reverse)\n`);
  const body = JSON.stringify(basicBody(MODEL));
  const plain = await mockProcess(false);
  const sums = { autocannon: [] as Rate[], driver: [] as Rate[], judged: [] as Rate[] };
  try {
    // Warm-up, then alternate so that drift on a shared machine weighs on each alike.
    await withDriver(plain.url, body, true);
    for (const order of [
      ['autocannon', 'driver', 'judged'],
      ['judged', 'driver', 'autocannon'],
    ] as const)
      for (const k of order) sums[k].push(k === 'autocannon' ? await withAutocannon(plain.url, body) : await withDriver(plain.url, body, k === 'judged'));
  } finally {
    await plain.stop();
  }
  const mean = (rs: Rate[]): Rate => ({
    perSecond: rs.reduce((n, r) => n + r.perSecond, 0) / rs.length,
    cpuUs: rs.reduce((n, r) => n + r.cpuUs, 0) / rs.length,
    bad: rs.reduce((n, r) => n + r.bad, 0),
  });
  const [ac, dr, jd] = [mean(sums.autocannon), mean(sums.driver), mean(sums.judged)];
  const rows = [
    ['autocannon', ac.perSecond.toFixed(0), `${ac.cpuUs.toFixed(0)} µs`, '', ''],
    [
      'the driver',
      dr.perSecond.toFixed(0),
      `${dr.cpuUs.toFixed(0)} µs`,
      `${pct(dr.perSecond / ac.perSecond)} of autocannon`,
      target(dr.perSecond >= 0.8 * ac.perSecond && !dr.bad, 'the driver >= 80% of autocannon'),
    ],
    [
      'the driver, judging',
      jd.perSecond.toFixed(0),
      `${jd.cpuUs.toFixed(0)} µs`,
      `${pct(jd.perSecond / dr.perSecond)} of the driver`,
      target(jd.perSecond >= 0.8 * dr.perSecond && !jd.bad, 'judging costs < 20%'),
    ],
  ];
  console.log('| generator | req/s | client CPU per answer | ratio | target |\n|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);

  const paced = await mockProcess(true);
  try {
    const ttft = HELD_TIMING.ttft_ms + 1000 / HELD_TIMING.tokens_per_second;
    const itl = 1000 / HELD_TIMING.tokens_per_second;
    const report = await runLoad({ baseUrl: paced.url, apiKey: KEY, concurrency: [16], requests: 64, maxTokens: 20 });
    const step = report.load!.steps.at(-1)!;
    const err = (got: number, want: number) => Math.abs(got - want) / want;
    console.log(`\nmeasurement: a mock paced at ttft ${HELD_TIMING.ttft_ms} ms (the first content token one token later: ${ttft} ms) and ${HELD_TIMING.tokens_per_second} tokens/s, 16 in flight\n`);
    console.log('| metric | paced | measured p50 | error | target |\n|---|---|---|---|---|');
    console.log(`| ttft | ${ttft} ms | ${step.ttft!.p50} ms | ${(err(step.ttft!.p50, ttft) * 100).toFixed(1)}% | ${target(err(step.ttft!.p50, ttft) <= 0.05, 'ttft p50 within 5%')} |`);
    console.log(`| itl | ${itl} ms | ${step.itl!.p50} ms | ${(err(step.itl!.p50, itl) * 100).toFixed(1)}% | ${target(err(step.itl!.p50, itl) <= 0.05, 'itl p50 within 5%')} |`);

    console.log(
      `\nscale: ${STREAMS} in flight in one process (the paced mock: each answer about ${(HELD_TIMING.ttft_ms + (SCALE_TOKENS * 1000) / HELD_TIMING.tokens_per_second) / 1000} s), every answer judged\n`,
    );
    const once1 = await scale(paced.url, STREAMS);
    const twice = await scale(paced.url, 2 * STREAMS);
    console.log('| requests | most in flight | failed | server ttfb p50 | peak RSS | took | target |\n|---|---|---|---|---|---|---|');
    for (const s of [once1, twice])
      console.log(
        `| ${s.requests} | ${s.peakInFlight} | ${s.failed} | ${Math.round(s.ttfb)} ms | ${mb(s.maxRss)} | ${(s.ms / 1000).toFixed(1)} s | ${target(s.peakInFlight >= STREAMS, `${STREAMS} streams in flight at once`)} |`,
      );
    if (once1.failed + twice.failed)
      console.log('(failed: connections the mock closed: a kept-alive socket reused as the saturated server times it out; load.overload-refused reports them, and the ttfb shows the saturation)');
    console.log(
      `\ntwice the requests / once: peak RSS ${(twice.maxRss / once1.maxRss).toFixed(2)}x ${target(twice.maxRss < 1.5 * once1.maxRss, 'RSS bounded by what is in flight, not by the requests')}`,
    );
  } finally {
    await paced.stop();
  }
  console.log(missed.length ? `\nload: MISSED ${missed.join('; ')}` : '\nload: all targets met');
}

if (process.argv[2] === 'child') child(process.argv[3], Number(process.argv[4]), Number(process.argv[5])).catch((e) => (console.error(e), process.exit(1)));
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  loadBench().then(
    () => process.exit(0),
    (e) => (console.error(e), process.exit(1)),
  );
