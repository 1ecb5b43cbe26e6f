// npm run bench: the mock against a minimal node:http server (the ceiling) and against aimock, a peer
// mock server (@copilotkit/aimock, bench/aimock.ts), side by side.
//   1. non-streaming requests per second, one request repeated   target: mock >= 60% of the ceiling
//      and every request distinct                                target: mock >= 85% of the ceiling
//   2. complete streams per second (include_usage)               target: mock >= 2x aimock
//   3. N (1,000) paced streams held open at once, mock and ceiling only: errors and the server's peak RSS
//      (target: none, < 300 MB)
// Each server runs in its own process (bench/server.ts); the load generator (autocannon for 1 and 2,
// an undici client for 3) runs here, and its own CPU use is reported so a saturated generator shows.
// Measurements alternate mock, ceiling, aimock, aimock, ceiling, mock so that drift weighs on all alike;
// each reply's shape is checked first (one request each, printed), aimock's as the others'. Distinct
// requests also go to the floor (its turns in the middle): the mock's adapter around a core that
// answers one fixed reply, what the mock would reach if its core cost nothing.
// Environment: BENCH_SECONDS (per server and measure, default 5), BENCH_CONNECTIONS (default 32),
// BENCH_STREAMS (default 1000), BENCH_PROF=<dir> (CPU profiles of the mock servers, --cpu-prof),
// BENCH_ONLY=run-cost|memory|hostile-kit|hostile-files|fuzz|dashboard|load|hostile-mock|sse|instructions|clients|throughput (only the kit's run cost, bench/run-cost.ts, its memory, bench/memory.ts,
// the kit against hostile servers under its body cap, bench/hostile-kit.ts, the files it reads built to
// exhaust it, bench/hostile-files.ts (hostile: all three),
// generated requests against a plain loop, bench/fuzz.ts, the mock with a dashboard page open against none,
// bench/dashboard.ts, conformance load's driver against autocannon, its measurement error and its scale,
// bench/load.ts, hostile requests to the mock at full size against a normal one, bench/hostile-mock.ts, the SSE parser's
// growth on hostile shapes, bench/sse.ts, instructions per request on the
// hot paths against the last release under valgrind, bench/instructions.ts, conformance clients against
// the embedded mock, client by client, bench/clients.ts, or the mock against the ceiling),
// BENCH_COMPARE=<dir> (see bench/run-cost.ts).
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { capture, CHAT_PATH, HEADERS, HELD_STREAM, mockConfig, SMALL, SMALL_STREAM } from './fixtures.js';
import { aimockFixture, aimockVersion } from './aimock.js';
import { dashboardBench } from './dashboard.js';
import { fuzzBench } from './fuzz.js';
import { loadBench } from './load.js';
import { hostileKitBench } from './hostile-kit.js';
import { hostileFilesBench } from './hostile-files.js';
import { clientsBench } from './clients.js';
import { hostileMockBench } from './hostile-mock.js';
import { instructionsBench } from './instructions.js';
import { memory } from './memory.js';
import { runCost } from './run-cost.js';
import { sseBench } from './sse.js';
import type { Mark } from './server.js';

const SECONDS = num('BENCH_SECONDS', 5);
const CONNECTIONS = num('BENCH_CONNECTIONS', 32);
const STREAMS = num('BENCH_STREAMS', 1000);
const WARMUP_SECONDS = Math.min(1, SECONDS);
const PROF_DIR = process.env.BENCH_PROF;
const RSS_LIMIT = 300 * 1024 * 1024;
const RATIO_TARGET = 0.6;
/** Real frontends and test suites send distinct conversations: each is generated and validated anew (issue 44). */
const DISTINCT_TARGET = 0.85;
/** The issue's bar against the peer: streams at twice aimock's rate or better. */
const STREAM_TARGET = 2;

type Kind = 'mock' | 'ceiling' | 'aimock';
/** A server of the bench: the three compared, or the mock's adapter around a core that does nothing (bench/server.ts). */
type ServerKind = Kind | 'floor';
const KINDS: readonly Kind[] = ['mock', 'ceiling', 'aimock'];
/** Each server the same time, in an order symmetric about its middle. */
const SCHEDULE: readonly Kind[] = ['mock', 'ceiling', 'aimock', 'aimock', 'ceiling', 'mock'];

function num(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** CPU time (ms) the whole machine spent busy so far, from /proc/stat; NaN where there is none.
 * Busy minus server minus generator is what else ran meanwhile (other jobs on a shared box). */
function machineBusyMs(): number {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: all but idle and iowait.
    const busy = cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6] + (cpu[7] ?? 0);
    return busy * 10; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------- servers, each in its process

interface Child {
  kind: ServerKind;
  url: string;
  pid: number;
  mark(): Promise<Mark>;
  stop(): Promise<void>;
}

async function startServer(kind: ServerKind, paced = false): Promise<Child> {
  const execArgv = PROF_DIR && kind === 'mock' ? ['--cpu-prof', `--cpu-prof-dir=${PROF_DIR}`] : [];
  const child: ChildProcess = fork(fileURLToPath(new URL('./server.js', import.meta.url)), paced ? [kind, 'paced'] : [kind], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv,
  });
  const waiting: ((m: Mark) => void)[] = [];
  const ready = new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code}) before it was ready`)));
    child.on('message', (m: { type: string; port?: number }) => {
      if (m.type === 'ready') resolve(m.port!);
      else if (m.type === 'mark') waiting.shift()?.(m as Mark);
    });
  });
  const port = await ready;
  child.removeAllListeners('exit');
  return {
    kind,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    mark: () =>
      new Promise<Mark>((resolve) => {
        waiting.push(resolve);
        child.send({ type: 'mark' });
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

// ---------------------------------------------------------------- one reply, checked

interface Shape {
  bytes: number;
  /** The answer's text: the message's content, or the stream's pieces joined. */
  text: string;
  events?: number;
  /** The stream's events in order, runs folded: "role, content x31, finish, usage, [DONE]". */
  outline?: string;
}

interface Chunk {
  choices: { delta?: { role?: string; content?: string | null }; finish_reason?: string | null }[];
  usage?: unknown;
}

async function check(server: Child, body: object): Promise<Shape> {
  const res = await fetch(server.url + CHAT_PATH, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${server.kind}: status ${res.status}: ${text.slice(0, 300)}`);
  if (!('stream' in body)) {
    const json = JSON.parse(text) as { object?: string; choices?: { message?: { content?: unknown } }[] };
    const content = json.choices?.[0]?.message?.content;
    if (json.object !== 'chat.completion' || typeof content !== 'string') throw new Error(`${server.kind}: not a chat.completion: ${text.slice(0, 300)}`);
    return { bytes: Buffer.byteLength(text), text: content };
  }
  const events = sseEvents(text);
  if (events.at(-1) !== 'data: [DONE]') throw new Error(`${server.kind}: the stream does not end with [DONE]`);
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice(6)) as Chunk);
  if (!chunks.at(-1)?.usage) throw new Error(`${server.kind}: the stream has no usage chunk`);
  return { bytes: Buffer.byteLength(text), text: chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), events: events.length, outline: outline(chunks) };
}

function outline(chunks: Chunk[]): string {
  const runs: [string, number][] = [];
  for (const c of chunks) {
    const choice = c.choices[0];
    const what = !choice ? (c.usage ? 'usage' : 'empty') : choice.finish_reason ? 'finish' : choice.delta?.role ? 'role' : choice.delta?.content ? 'content' : 'empty';
    const last = runs.at(-1);
    if (last?.[0] === what) last[1]++;
    else runs.push([what, 1]);
  }
  return [...runs.map(([w, n]) => (n > 1 ? `${w} x${n}` : w)), '[DONE]'].join(', ');
}

function sseEvents(text: string): string[] {
  return text.split('\n\n').filter((e) => e.length > 0);
}

// ---------------------------------------------------------------- throughput (autocannon)

interface Segment {
  completed: number;
  bad: number;
  seconds: number;
  serverCpuMs: number;
  serverWallMs: number;
  genCpuMs: number;
  genWallMs: number;
  machineMs: number;
  peakRss: number;
}

/** Distinct bodies (a new seed each time) defeat any reuse of a prepared reply: generation every time. */
let seedCounter = 0;
const distinctRequests = (body: string) => [
  {
    method: 'POST' as const,
    path: CHAT_PATH,
    headers: HEADERS,
    setupRequest: (req: Record<string, unknown>) => ({ ...req, body: `${body.slice(0, -1)},"seed":${++seedCounter}}` }),
  },
];

async function segment(server: Child, body: string, seconds: number, distinct = false): Promise<Segment> {
  const s0 = await server.mark();
  const m0 = machineBusyMs();
  const g0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await autocannon({
    url: server.url + CHAT_PATH,
    method: 'POST',
    headers: HEADERS,
    body,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    ...(distinct ? { requests: distinctRequests(body) } : {}),
  });
  const genWallMs = performance.now() - t0;
  const g = process.cpuUsage(g0);
  const machineMs = machineBusyMs() - m0;
  const s1 = await server.mark();
  return {
    completed: r['2xx'],
    bad: r.non2xx + r.errors + r.timeouts + r.resets,
    seconds: r.duration,
    serverCpuMs: (s1.cpuUs - s0.cpuUs) / 1000,
    serverWallMs: s1.now - s0.now,
    genCpuMs: (g.user + g.system) / 1000,
    genWallMs,
    machineMs,
    peakRss: s1.peakRss,
  };
}

interface Throughput {
  perSecond: number;
  bad: number;
  serverCpu: number;
  /** Server CPU time per completed request, microseconds: steadier than req/s on a busy machine. */
  cpuUsPerReq: number;
  genCpu: number;
  /** Everything else the machine ran meanwhile, % of one core. */
  otherCpu: number;
  peakRss: number;
  shape: Shape;
}

function sum(segs: Segment[]): Omit<Throughput, 'shape'> {
  const t = (f: (s: Segment) => number) => segs.reduce((a, s) => a + f(s), 0);
  return {
    perSecond: t((s) => s.completed) / t((s) => s.seconds),
    bad: t((s) => s.bad),
    serverCpu: t((s) => s.serverCpuMs) / t((s) => s.serverWallMs),
    cpuUsPerReq: (t((s) => s.serverCpuMs) * 1000) / t((s) => s.completed),
    genCpu: t((s) => s.genCpuMs) / t((s) => s.genWallMs),
    otherCpu: Math.max(0, t((s) => s.machineMs - s.serverCpuMs - s.genCpuMs) / t((s) => s.genWallMs)),
    peakRss: Math.max(...segs.map((s) => s.peakRss)),
  };
}

/** Warm-up of each, then the SCHEDULE: half of SECONDS a turn. A distinct run's shape is checked with
 * seed 0. `floor`, where given, takes its turns in the middle of the schedule, and its shape is not
 * checked (it answers every request with the one reply). */
async function throughput(servers: Record<Kind, Child>, body: object, distinct = false, floor?: Child): Promise<Record<Kind, Throughput> & { floor?: Omit<Throughput, 'shape'> }> {
  const text = JSON.stringify(body);
  const shapes = {} as Record<Kind, Shape>;
  for (const kind of KINDS) shapes[kind] = await check(servers[kind], distinct ? { ...body, seed: 0 } : body);
  const all = floor ? [...KINDS.map((k) => servers[k]), floor] : KINDS.map((k) => servers[k]);
  for (const server of all) await segment(server, text, WARMUP_SECONDS, distinct);
  const segs = new Map<Child, Segment[]>(all.map((server) => [server, []]));
  const half = SCHEDULE.length / 2;
  const schedule = floor ? [...SCHEDULE.slice(0, half).map((k) => servers[k]), floor, floor, ...SCHEDULE.slice(half).map((k) => servers[k])] : SCHEDULE.map((k) => servers[k]);
  for (const server of schedule) segs.get(server)!.push(await segment(server, text, SECONDS / 2, distinct));
  const of = (kind: Kind) => ({ ...sum(segs.get(servers[kind])!), shape: shapes[kind] });
  return { mock: of('mock'), ceiling: of('ceiling'), aimock: of('aimock'), ...(floor ? { floor: sum(segs.get(floor)!) } : {}) };
}

// ---------------------------------------------------------------- N streams held open together

interface Held {
  ok: number;
  errors: number;
  /** Error kinds and how often. */
  why: Map<string, number>;
  /** Most streams open (headers in, end not yet) at one time. */
  peakOpen: number;
  wallMs: number;
  lastHeadersMs: number;
  firstDoneMs: number;
  /** Headers to end of each complete stream, sorted (ms). */
  durations: number[];
  peakRss: number;
  idleRss: number;
  serverCpu: number;
  serverCpuMs: number;
  genCpu: number;
}

async function held(server: Child, n: number, events: number): Promise<Held> {
  const agent = new Agent({ connections: n, pipelining: 1, connect: { timeout: 30_000 } });
  const body = JSON.stringify(HELD_STREAM);
  const why = new Map<string, number>();
  const fail = (k: string) => why.set(k, (why.get(k) ?? 0) + 1);
  let open = 0;
  let peakOpen = 0;
  let ok = 0;
  let lastHeadersMs = 0;
  let firstDoneMs = Infinity;
  const durations: number[] = [];
  const s0 = await server.mark();
  const g0 = process.cpuUsage();
  const t0 = performance.now();
  const one = async () => {
    try {
      const res = await request(server.url + CHAT_PATH, { method: 'POST', headers: HEADERS, body, dispatcher: agent, signal: AbortSignal.timeout(60_000) });
      const headersAt = performance.now();
      lastHeadersMs = Math.max(lastHeadersMs, headersAt - t0);
      if (res.statusCode !== 200) {
        await res.body.dump();
        return fail(`status ${res.statusCode}`);
      }
      peakOpen = Math.max(peakOpen, ++open);
      res.body.setEncoding('utf8');
      let text = '';
      try {
        for await (const c of res.body) text += c;
      } finally {
        open--;
      }
      firstDoneMs = Math.min(firstDoneMs, performance.now() - t0);
      const got = sseEvents(text);
      if (got.length !== events || got.at(-1) !== 'data: [DONE]') return fail(`${got.length} events, not ${events}`);
      durations.push(performance.now() - headersAt);
      ok++;
    } catch (e) {
      const err = e as { code?: string; name?: string; message?: string };
      fail(err.code ?? err.name ?? String(err.message));
    }
  };
  await Promise.all(Array.from({ length: n }, one));
  const wallMs = performance.now() - t0;
  const g = process.cpuUsage(g0);
  const s1 = await server.mark();
  await agent.close();
  return {
    ok,
    errors: n - ok,
    why,
    peakOpen,
    wallMs,
    lastHeadersMs,
    firstDoneMs,
    durations: durations.sort((a, b) => a - b),
    peakRss: Math.max(s1.peakRss, s1.maxRss),
    idleRss: s0.rss,
    serverCpu: (s1.cpuUs - s0.cpuUs) / 1000 / (s1.now - s0.now),
    serverCpuMs: (s1.cpuUs - s0.cpuUs) / 1000,
    genCpu: (g.user + g.system) / 1000 / wallMs,
  };
}

// ---------------------------------------------------------------- report

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : 'n/a');
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

function table(head: string[], rows: string[][]): string {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i])).join(' | ')} |`;
  return [line(head), `|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  if (!only || only === 'run-cost') await runCost();
  if (!only || only === 'memory') await memory();
  if (!only || only === 'hostile' || only === 'hostile-kit') await hostileKitBench();
  if (!only || only === 'hostile' || only === 'hostile-files') await hostileFilesBench();
  if (!only || only === 'fuzz') await fuzzBench();
  if (!only || only === 'dashboard') await dashboardBench();
  if (!only || only === 'load') await loadBench();
  if (!only || only === 'hostile' || only === 'hostile-mock') await hostileMockBench();
  if (!only || only === 'sse') await sseBench();
  if (!only || only === 'instructions') await instructionsBench();
  if (!only || only === 'clients') await clientsBench();
  if (only && only !== 'throughput') return;
  const started = performance.now();
  const aimock = { version: aimockVersion(), ...aimockFixture() };
  console.log(
    `bench: ${SECONDS} s per server and measure (alternating ${SCHEDULE.join(', ')}; ${WARMUP_SECONDS} s warm-up each), ` +
      `${CONNECTIONS} connections, ${STREAMS} held streams; aimock ${aimock.version}; Node ${process.version}\n`,
  );

  const servers = {} as Record<Kind, Child>;
  let floorServer: Child | undefined;
  let plain: Record<Kind, Throughput>;
  let fresh: Awaited<ReturnType<typeof throughput>>;
  let streamed: Record<Kind, Throughput>;
  try {
    for (const kind of KINDS) servers[kind] = await startServer(kind);
    floorServer = await startServer('floor');
    process.stdout.write('1/3 non-streaming requests per second (one request repeated, then every request distinct)...\n');
    plain = await throughput(servers, SMALL);
    fresh = await throughput(servers, SMALL, true, floorServer);
    process.stdout.write('2/3 complete streams per second...\n');
    streamed = await throughput(servers, SMALL_STREAM);
  } finally {
    for (const server of [...Object.values(servers), ...(floorServer ? [floorServer] : [])]) await server.stop();
  }

  process.stdout.write(`3/3 ${STREAMS} paced streams held open at once (mock and ceiling)...\n`);
  const heldFrames = capture(mockConfig(true), HELD_STREAM).frames!;
  const events = heldFrames.length;
  const nominalMs = heldFrames.reduce((a, f) => a + f.delayMs, 0);
  const HELD_KINDS = ['mock', 'ceiling'] as const;
  const heldBy = {} as Record<(typeof HELD_KINDS)[number], Held>;
  for (const kind of HELD_KINDS) {
    const server = await startServer(kind, true);
    try {
      await check(server, { ...HELD_STREAM, max_tokens: 1 });
      heldBy[kind] = await held(server, STREAMS, events);
    } finally {
      await server.stop();
    }
  }

  const missed: string[] = [];
  const verdict = (ok: boolean, what: string) => {
    if (!ok) missed.push(what);
    return ok ? 'yes' : 'MISSED';
  };
  const ratio = (m: number, c: number) => pct(m / c);
  const times = (m: number, a: number) => (Number.isFinite(m / a) ? `${(m / a).toFixed(2)}x` : 'n/a');
  /** A measure's figures for the three servers, and the mock's ratios to the other two. */
  const across = (r: Record<Kind, Throughput>, f: (t: Throughput) => number) => [int(f(r.mock)), int(f(r.ceiling)), int(f(r.aimock)), ratio(f(r.mock), f(r.ceiling)), times(f(r.mock), f(r.aimock))];
  const perSecond = (t: Throughput) => t.perSecond;
  const perCpuSecond = (t: Throughput) => 1e6 / t.cpuUsPerReq;
  const rows = [
    [
      'non-streaming req/s (one request repeated)',
      ...across(plain, perSecond),
      `>= ${pct(RATIO_TARGET)} of the ceiling`,
      verdict(plain.mock.perSecond >= RATIO_TARGET * plain.ceiling.perSecond && plain.mock.bad === 0, `non-streaming req/s >= ${pct(RATIO_TARGET)} of the ceiling, no error`),
    ],
    [
      'non-streaming req/s, distinct requests',
      ...across(fresh, perSecond),
      `>= ${pct(DISTINCT_TARGET)} of the ceiling`,
      verdict(fresh.mock.perSecond >= DISTINCT_TARGET * fresh.ceiling.perSecond && fresh.mock.bad === 0, `distinct requests >= ${pct(DISTINCT_TARGET)} of the ceiling, no error`),
    ],
    [
      'complete streams/s (with usage)',
      ...across(streamed, perSecond),
      `>= ${STREAM_TARGET}x aimock`,
      verdict(streamed.mock.perSecond >= STREAM_TARGET * streamed.aimock.perSecond && streamed.mock.bad === 0, `streams >= ${STREAM_TARGET}x aimock, no error`),
    ],
    ['non-streaming req per server CPU-s', ...across(plain, perCpuSecond), '(report)', '-'],
    ['distinct req per server CPU-s', ...across(fresh, perCpuSecond), '(report)', '-'],
    ['streams per server CPU-s', ...across(streamed, perCpuSecond), '(report)', '-'],
    [`${int(STREAMS)} held streams: errors`, int(heldBy.mock.errors), int(heldBy.ceiling.errors), '-', '', '', '0', verdict(heldBy.mock.errors === 0, `${STREAMS} held streams without error`)],
    [
      `${int(STREAMS)} held streams: peak RSS`,
      mb(heldBy.mock.peakRss),
      mb(heldBy.ceiling.peakRss),
      '-',
      ratio(heldBy.mock.peakRss, heldBy.ceiling.peakRss),
      '',
      '< 300 MB',
      verdict(heldBy.mock.peakRss < RSS_LIMIT, 'peak RSS < 300 MB with the held streams'),
    ],
  ];
  console.log(`\n${table(['measure', 'mock', 'ceiling', `aimock ${aimock.version}`, 'mock/ceiling', 'mock/aimock', 'target', 'met'], rows)}\n`);
  const floor = fresh.floor!;
  console.log(
    `the floor under a distinct request: the mock's node:http adapter (its boundary, the body's reading, the reply's writing) around a core that answers ` +
      `one fixed reply: ${int(floor.perSecond)} req/s, ${int(floor.cpuUsPerReq)} µs of server CPU a request, ${ratio(1 / floor.cpuUsPerReq, 1 / fresh.ceiling.cpuUsPerReq)} of the ceiling's ` +
      `requests per CPU-s; the core's share of the mock's ${int(fresh.mock.cpuUsPerReq)} µs: ${ratio(fresh.mock.cpuUsPerReq - floor.cpuUsPerReq, fresh.mock.cpuUsPerReq)}\n`,
  );

  const detail: string[][] = [];
  for (const [name, r] of [
    ['non-streaming', plain],
    ['non-streaming, distinct', fresh],
    ['streams', streamed],
  ] as const)
    for (const kind of KINDS)
      detail.push([
        name,
        kind,
        int(r[kind].perSecond),
        `${int(r[kind].shape.bytes)} B${r[kind].shape.events ? ` / ${r[kind].shape.events} events` : ''}`,
        int(r[kind].bad),
        pct(r[kind].serverCpu),
        `${int(r[kind].cpuUsPerReq)} µs`,
        pct(r[kind].genCpu),
        pct(r[kind].otherCpu),
        mb(r[kind].peakRss),
      ]);
  for (const kind of HELD_KINDS) {
    const h = heldBy[kind];
    detail.push([
      `${int(STREAMS)} held`,
      kind,
      `${int(h.ok)} ok`,
      `${events} events`,
      int(h.errors),
      pct(h.serverCpu),
      `${int((h.serverCpuMs * 1000) / STREAMS)} µs`,
      pct(h.genCpu),
      '',
      mb(h.peakRss),
    ]);
  }
  console.log(table(['phase', 'server', 'per second', 'reply', 'errors', 'server CPU', 'CPU/req', 'generator CPU', 'other CPU', 'server peak RSS'], detail));
  console.log(
    '(CPU as % of one core over the measured time. The generator is this process: autocannon, or undici for the held streams.\n' +
      ' "other CPU" is what the rest of the machine ran meanwhile, from /proc/stat; "per server CPU-s" rows divide by the server\'s own CPU time,\n' +
      ' which holds steadier than req/s when other jobs share the cores.)\n',
  );

  const same = (a: Shape, b: Shape) => (a.text === b.text ? 'the same text' : `another text (${a.text.length} against ${b.text.length} characters)`);
  console.log(
    `aimock ${aimock.version}'s fixture: the mock's answer to the bench's request (${aimock.content.length} characters), matched on the user message, ` +
      `streamed ${aimock.chunkSize} characters an event (the mock streams ${aimock.mockContentEvents} pieces, a token each).\n` +
      `  non-streaming: aimock ${same(plain.aimock.shape, plain.mock.shape)} as the mock; distinct requests: aimock its one fixture for every seed, ` +
      `the mock ${fresh.mock.shape.text === plain.mock.shape.text ? 'the same text' : 'a text of its own'} for each (seed 0: ${fresh.mock.shape.text.length} characters)\n` +
      `  streams: aimock ${same(streamed.aimock.shape, streamed.mock.shape)} as the mock, in ${streamed.aimock.shape.events} events against the mock's ${streamed.mock.shape.events}\n` +
      `    mock:   ${streamed.mock.shape.outline}\n` +
      `    aimock: ${streamed.aimock.shape.outline}\n`,
  );

  for (const kind of HELD_KINDS) {
    const h = heldBy[kind];
    const reasons = [...h.why].map(([k, v]) => `${k} x${v}`).join(', ');
    const q = (f: number) => int(h.durations[Math.min(h.durations.length - 1, Math.floor(f * h.durations.length))] ?? NaN);
    console.log(
      `held streams, ${kind}: ${h.ok}/${STREAMS} complete, at most ${int(h.peakOpen)} open at once; all headers in by ${int(h.lastHeadersMs)} ms, ` +
        `first end at ${int(h.firstDoneMs)} ms, all done in ${int(h.wallMs)} ms; stream length (headers to end; ${int(nominalMs)} ms nominal) ` +
        `min ${q(0)} / p50 ${q(0.5)} / max ${q(1)} ms; RSS idle ${mb(h.idleRss)}, peak ${mb(h.peakRss)}${reasons ? `; errors: ${reasons}` : ''}`,
    );
  }
  const phases = [plain, fresh, streamed];
  const saturated = phases.some((r) => KINDS.some((k) => r[k].genCpu > 0.9));
  const busy = phases.some((r) => KINDS.some((k) => r[k].otherCpu > 0.25));
  const aimockBad = phases.reduce((a, r) => a + r.aimock.bad, 0);
  if (aimockBad) console.log(`NOTE: aimock failed ${int(aimockBad)} requests: its figures count only the answered ones.`);
  if (busy) console.log('NOTE: other jobs used over a quarter of a core during the measurements: req/s ratios are noisy; see the per-CPU-second rows.');
  if (saturated) console.log("NOTE: the load generator used over 90% of a core: the ceiling figures may be the generator's limit, not the server's.");
  console.log(`\nbench took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (missed.length) console.log(`\nMISSED: ${missed.join('; ')}`);
  else console.log('\nall targets met');
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
