// Generated requests per second against the embedded mock (in this process, as `conformance fuzz`
// runs it), side by side with a plain loop that sends the kit's fixed requests over the same client
// (the runner's exchanges: its HTTP client, timeouts, body cap), alternating plain, fuzz, fuzz, plain,
// twice; by wall time and by this process's CPU time (steadier when other jobs share the cores);
// then the mock's survival of 10,000 generated requests with a fixed seed: no 5xx, every refusal a
// JSON error, and the peak RSS of this process (kit and mock together).
//   node dist/bench/fuzz.js        (or npm run bench; BENCH_ONLY=fuzz for this part alone)
// Environment: BENCH_FUZZ_REQUESTS (per measure, default 3000), BENCH_FUZZ_SURVIVAL (default 10000).
// Its module is also the tests' watcher of a mock's answers (watched).
import { pathToFileURL } from 'node:url';
import { createMock, type Mock } from '../mock/core/handle.js';
import { startMockServer } from '../mock/http.js';
import { chat, sayOk, type ApiCheck } from '../suites/api.js';
import { pass } from '../engine/check.js';
import type { Exchange } from '../engine/exchanges.js';
import { withFuzz } from '../suites/index.js';
import { runSession } from '../suites/session.js';

const REQUESTS = num('BENCH_FUZZ_REQUESTS', 3_000);
const SURVIVAL = num('BENCH_FUZZ_SURVIVAL', 10_000);
const SEED = 2024;
const RATE_TARGET = 1_000;
const RATIO_TARGET = 0.5;

function num(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** The plain loop: the kit's fixed requests (the smallest one, on each model, streamed and not) sent
 * `n` times in all, as many in flight as the fuzz session keeps. */
const plainLoop = (n: number): ApiCheck => ({
  id: 'bench.plain',
  suite: 'bench',
  title: 'fixed requests in a loop',
  section: '',
  level: 'info',
  timeLimitMs: () => 2 ** 31 - 1,
  async run(ctx) {
    const bodies = ['mock-chat-1', 'mock-reason-1'].flatMap((m) => [sayOk(m), { ...sayOk(m), stream: true, stream_options: { include_usage: true } }]);
    const pending = new Set<Promise<Exchange>>();
    for (let i = 0; i < n; i++) {
      // `repeat`: sent again, not handed the first answer.
      const p = chat(ctx, bodies[i % bodies.length], { label: 'fixed request', repeat: i });
      pending.add(p);
      void p.then(() => pending.delete(p));
      if (pending.size >= 64) await Promise.race(pending);
    }
    await Promise.all(pending);
    return pass();
  },
});

/** A mock keeping the status of each answer (0: no HTTP answer), and the refusals that are no JSON
 * error with a message (the tests hold the mock to the same). */
export function watched(base: Mock = createMock()): Mock & { statuses: number[]; unclear: string[] } {
  const statuses: number[] = [];
  const unclear: string[] = [];
  return {
    config: base.config,
    journal: base.journal,
    control: base.control,
    statuses,
    unclear,
    handle(req) {
      const reply = base.handle(req);
      statuses.push('status' in reply ? reply.status : 0);
      if ('body' in reply && reply.status >= 400) {
        const text = typeof reply.body === 'string' ? reply.body : new TextDecoder().decode(reply.body);
        try {
          if (typeof JSON.parse(text).error.message !== 'string') unclear.push(text);
        } catch {
          unclear.push(text);
        }
      }
      return reply;
    },
  };
}

interface Measure {
  perSecond: number;
  requests: number;
  seconds: number;
  /** CPU time of this process (kit and mock), which other jobs on the machine do not stretch. */
  cpuSeconds: number;
  exitCode: number;
}

/** One session against a fresh embedded mock: the fuzz checks with `runs` requests, or the plain loop. */
async function session(kind: 'fuzz' | 'plain', n: number, mock: Mock = createMock()): Promise<Measure> {
  const server = await startMockServer({ mock });
  try {
    const registry = kind === 'fuzz' ? withFuzz({ seed: SEED, runs: n, maxRequests: n, shrinkRequests: 0 }) : [plainLoop(n)];
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const report = await runSession({ baseUrl: server.url, apiKey: mock.config.keys[0].key, registry, suites: [kind === 'fuzz' ? 'fuzz' : 'bench'], strict: true });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return { perSecond: (report.requestsSent ?? 0) / seconds, requests: report.requestsSent ?? 0, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, exitCode: report.exitCode };
  } finally {
    await server.close();
  }
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

export async function fuzzBench(): Promise<void> {
  console.log(`fuzz: ${int(REQUESTS)} requests per measure, alternating plain, fuzz, fuzz, plain, twice (embedded mock, seed ${SEED}); Node ${process.version}\n`);
  // Warm-up: the JIT, the schemas compiled, fast-check's arbitraries built.
  await session('fuzz', 300);
  await session('plain', 300);
  const runs: Record<'fuzz' | 'plain', Measure[]> = { fuzz: [], plain: [] };
  for (const kind of ['plain', 'fuzz', 'fuzz', 'plain', 'plain', 'fuzz', 'fuzz', 'plain'] as const) runs[kind].push(await session(kind, REQUESTS));
  const rate = (ms: Measure[], time: (m: Measure) => number = (m) => m.seconds) => ms.reduce((a, m) => a + m.requests, 0) / ms.reduce((a, m) => a + time(m), 0);
  const fuzz = rate(runs.fuzz);
  const plain = rate(runs.plain);
  const [fuzzCpu, plainCpu] = [runs.fuzz, runs.plain].map((ms) => rate(ms, (m) => m.cpuSeconds));

  process.stdout.write(`the mock under ${int(SURVIVAL)} generated requests (seed ${SEED})...\n`);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const mock = watched();
  const survival = await session('fuzz', SURVIVAL, mock).finally(() => clearInterval(sampler));
  const fivexx = mock.statuses.filter((s) => s >= 500 || s === 0).length;

  const rows = [
    [
      'requests per second, embedded mock',
      int(fuzz),
      int(plain),
      pct(fuzz / plain),
      `>= ${int(RATE_TARGET)}/s, >= ${pct(RATIO_TARGET)}`,
      fuzz >= RATE_TARGET && fuzz >= RATIO_TARGET * plain ? 'yes' : 'MISSED',
    ],
    ['requests per CPU second (kit and mock)', int(fuzzCpu), int(plainCpu), pct(fuzzCpu / plainCpu), '(report)', '-'],
    [`${int(SURVIVAL)} generated requests: a 5xx or no answer`, int(fivexx), '', '', '0', fivexx === 0 ? 'yes' : 'MISSED'],
    [`${int(SURVIVAL)} generated requests: a refusal that is no JSON error`, int(mock.unclear.length), '', '', '0', mock.unclear.length === 0 ? 'yes' : 'MISSED'],
    [`${int(SURVIVAL)} generated requests: peak RSS, kit and mock`, `${(peak / 1024 / 1024).toFixed(0)} MB`, '', '', '(report)', '-'],
  ];
  const head = ['measure', 'fuzz', 'plain loop', 'ratio', 'target', 'met'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i])).join(' | ')} |`;
  console.log(`\n${[line(head), `|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n')}`);
  console.log(
    `\n(each measure: ${runs.fuzz.map((m) => `fuzz ${int(m.perSecond)}/s`).join(', ')}, ${runs.plain.map((m) => `plain ${int(m.perSecond)}/s`).join(', ')}; ` +
      `${int(survival.requests)} requests in ${survival.seconds.toFixed(1)} s for the survival run, ${mock.statuses.filter((s) => s >= 400 && s < 500).length} of them refused, exit code ${survival.exitCode})\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  fuzzBench().then(
    () => process.exit(0),
    (e) => (console.error(e), process.exit(1)),
  );
