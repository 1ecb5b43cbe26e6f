// The process that runs under valgrind's callgrind for `BENCH_ONLY=instructions` (bench/instructions.ts):
// it loads one build of the kit (the working tree's, or the baseline's built beside it) and runs each
// hot path of the plan in windows of two lengths, marking each window's end with a call callgrind
// dumps its counts at (`--dump-before=uv_uptime`: os.uptime() is the only caller of uv_uptime, and
// nothing of Node calls it by itself). The count of a window is then the difference of two points of
// one run, so start-up never enters it, and of a window of n and one of 2n, the difference is n
// requests with every per-window constant (the mark, the forced scavenges) cancelled.
//   node dist/bench/instructions-probe.js <plan.json>
// It writes the label of each dump, in order, to the plan's `labels` file. It imports nothing of the
// build it measures statically: the build is a directory given in the plan, and a path it does not
// have (the load judge of a commit before it) is reported missing, not failed.
import { readFileSync, writeFileSync } from 'node:fs';
import { uptime } from 'node:os';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What bench/instructions.ts asks of one process. */
export interface Plan {
  /** The root of the build under test (its dist/ is imported). */
  build: string;
  /** Requests and answers, made once by the parent from the working tree, the same for every build. */
  fixtures: Fixtures;
  paths: { name: PathName; warm: number; n: number; windows: number }[];
  /** Where the labels of the dumps go. */
  labels: string;
  /** More warm-up, in windows of each path (0.5: its windows placed half a window later than another run's). */
  shift?: number;
  /** A slowdown injected on purpose (BENCH_SLOWER): a path's window runs this fraction more requests
   * than it is counted for, as code that costs that much more would (how the gate is shown to fail). */
  slower?: Partial<Record<PathName, number>>;
}

export type PathName =
  | 'mock.same'
  | 'mock.distinct'
  | 'mock.conversation'
  | 'mock.stream'
  | 'kit.read-json'
  | 'kit.read-stream'
  | 'kit.judge-json'
  | 'kit.judge-stream'
  | 'load.driver'
  | 'fuzz.generate'
  | 'kit.floor-json'
  | 'load.dispatch'
  | 'load.autocannon';

export interface Fixtures {
  model: string;
  chatPath: string;
  /** Lower-case, as node:http gives them to the core. */
  headers: Record<string, string>;
  /** The bench's small request (bench/fixtures.ts SMALL), as JSON text. */
  small: string;
  smallStream: string;
  /** A conversation of some kilobytes, its seed 1000000000 (each request gets its own). */
  conversation: string;
  /** The load's basic request and the mock's answers to it (the answer's id stands in `idTemplate`). */
  basicBody: unknown;
  basicStreamBody: unknown;
  jsonAnswer: { status: number; headers: Record<string, string>; body: string };
  streamAnswer: { status: number; headers: Record<string, string>; body: string };
  /** The id in both answers, whose last ten characters are replaced per answer: a load's answers carry distinct ids. */
  idTemplate: string;
  /** A fixed-reply server (bench/ceiling.ts) in the parent's process, for the driver. */
  url?: string;
}

/** Thrown when the build has no such path: the parent shows it as missing. */
class Missing extends Error {}

type Run = (count: number) => unknown;

/** A path: `prepare(count)` builds the inputs of the next `count` runs outside the window (a load's
 * answers and a server's requests arrive as new bytes: they are made, not counted), `run` is counted. */
interface Path {
  prepare(count: number): void;
  run: Run;
}

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Plan;
const labels: string[] = [];
const gc = (globalThis as { gc?: (o: { type: 'minor' | 'major' }) => void }).gc;
if (!gc) throw new Error('the probe needs --expose-gc');

// A mark-compact would land in one window and not the next: the flags keep it away, and this says if not.
let majorGcs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
}).observe({ entryTypes: ['gc'] });

/** Ends the segment since the last mark: callgrind dumps it under this label. */
function mark(label: string): void {
  uptime();
  labels.push(label);
}

async function from(rel: string): Promise<any> {
  try {
    return await import(pathToFileURL(resolve(plan.build, 'dist', rel)).href);
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') throw new Missing(rel);
    throw e;
  }
}

const fx = plan.fixtures;

/** Copies of `template` with `digits` (one per copy, all of one length) written over each place of `stand`:
 * fresh bytes per request or answer, made for the price of a copy. */
function stamped(template: string, stand: string) {
  const bytes = Buffer.from(template);
  const at: number[] = [];
  for (let i = bytes.indexOf(stand); i >= 0; i = bytes.indexOf(stand, i + 1)) at.push(i + stand.length - 10);
  if (!at.length) throw new Error(`no ${stand} in the fixture`);
  return (digits: string) => {
    const copy = Buffer.from(bytes);
    for (const i of at) copy.write(digits, i, 'latin1');
    return copy;
  };
}

/** Ten digits, unique in this process: a seed that is valid JSON, the end of an id. */
let serial = 1_000_000_000;
const nextDigits = () => String(++serial);

async function mockPath(kind: 'same' | 'distinct' | 'conversation' | 'stream'): Promise<Path> {
  const { createMock } = await from('mock/core/handle.js');
  const mock = createMock();
  const same = Buffer.from(kind === 'stream' ? fx.smallStream : fx.small);
  // Distinct as bench/run.ts makes them: a seed the mock echoes nowhere, so each reply is worked out anew.
  const distinct = stamped(kind === 'conversation' ? fx.conversation : `${fx.small.slice(0, -1)},"seed":1000000000}`, '1000000000');
  let requests: { method: string; path: string; headers: Record<string, string>; body: Buffer }[] = [];
  return {
    prepare(count) {
      requests = [];
      for (let i = 0; i < count; i++) requests.push({ method: 'POST', path: fx.chatPath, headers: fx.headers, body: kind === 'distinct' || kind === 'conversation' ? distinct(nextDigits()) : same });
    },
    run(count) {
      for (let i = 0; i < count; i++) {
        const reply = mock.handle(requests[i]);
        if (reply.status !== 200) throw new Error(`the mock answered ${reply.status}`);
        // A transport writes every frame: the stream's cost is in making them.
        if (reply.stream) for (const _ of reply.stream);
      }
    },
  };
}

/** The mock's answers as a transport hands them over (the body, and when its pieces came), each
 * with an id of its own when `distinct` (a load's judge holds ids unique), else the same bytes. */
function answers(stream: boolean, distinct: boolean) {
  const a = stream ? fx.streamAnswer : fx.jsonAnswer;
  const spec = { method: 'POST', url: `http://127.0.0.1${fx.chatPath}`, headers: fx.headers, body: JSON.stringify(stream ? fx.basicStreamBody : fx.basicBody) };
  const withId = stamped(a.body, fx.idTemplate);
  const same = withId(nextDigits());
  return {
    spec,
    make(count: number) {
      const out = [];
      for (let i = 0; i < count; i++) {
        const body = distinct ? withId(nextDigits()) : same;
        out.push({ status: a.status, headers: a.headers, body, bytesRead: body.length, complete: true, durationMs: 2, times: { sentAt: 0, headersAt: 1, reads: [body.length, 2] } });
      }
      return out;
    },
  };
}

async function readPath(stream: boolean): Promise<Path> {
  const { readAnswer } = await from('suites/answer.js');
  const made = answers(stream, false);
  let batch: ReturnType<typeof made.make> = [];
  return {
    prepare(count) {
      batch = made.make(count);
    },
    run(count) {
      for (let i = 0; i < count; i++) readAnswer({ ...batch[i], label: 'basic chat completion', request: made.spec, rateLimited: false, retries: 0 }, stream);
    },
  };
}

/** The floor under judging a JSON answer: its body parsed, and the whole answer checked against the
 * document's response schema, nothing else (no reading in parts, no rule, no tally). */
async function floorPath(): Promise<Path> {
  const { validator } = await from('schemas/index.js');
  const valid = validator('response');
  const made = answers(false, true);
  let batch: ReturnType<typeof made.make> = [];
  return {
    prepare(count) {
      batch = made.make(count);
    },
    run(count) {
      for (let i = 0; i < count; i++) if (!valid(JSON.parse(batch[i].body.toString('latin1'))).ok) throw new Error("the mock's answer is not of the response schema");
    },
  };
}

async function judgePath(stream: boolean): Promise<Path> {
  const [{ Judge, Step, keeperFor }, { EACH_RULES }, { Redactor }] = await Promise.all([from('suites/load/judge.js'), from('suites/load/session.js'), from('engine/redact.js')]);
  const judge = new Judge(EACH_RULES, { model: fx.model, refs: {} }, 10_000, undefined);
  const step = new Step('bench', keeperFor(new Redactor()));
  const body = stream ? fx.basicStreamBody : fx.basicBody;
  const made = answers(stream, true);
  const item = { kind: 'basic', stream, label: `basic chat completion${stream ? ', streamed' : ''}`, body, spec: made.spec };
  let batch: ReturnType<typeof made.make> = [];
  return {
    prepare(count) {
      batch = made.make(count);
    },
    run(count) {
      for (let i = 0; i < count; i++) judge.answer(step, item, batch[i], 0, true);
      const broken = [...step.rules].filter(([, t]: [string, { broken: number }]) => t.broken).map(([id]) => id);
      if (broken.length) throw new Error(`the judge found broken rules on the mock's answers: ${broken.join(', ')}`);
    },
  };
}

/** `conformance fuzz`'s generator: the case at each index and its wire text, for the mock's models as
 * its catalog declares them. Every window makes the same cases (the same seed and indices, past the
 * breadth list, drawn from the weighted mix), so the windows do the same work. */
async function fuzzPath(): Promise<Path> {
  const [{ createMock }, { casesFor }, { caseAt }, { wire }, { declaredParameters, outputLength }] = await Promise.all([
    from('mock/core/handle.js'),
    from('suites/fuzz/cases.js'),
    from('suites/fuzz/session.js'),
    from('suites/fuzz/case.js'),
    from('suites/api.js'),
  ]);
  if (typeof caseAt !== 'function' || typeof casesFor !== 'function') throw new Missing('suites/fuzz/session.js caseAt');
  const entries = (JSON.parse(String(createMock().handle({ method: 'GET', path: '/models.json', headers: {}, body: '' }).body)) as { data: { id: string }[] }).data;
  const cases = casesFor({ models: entries.map((e) => ({ id: e.id, params: declaredParameters(e), outputLength: outputLength(e) })) });
  const first = cases.breadth.length;
  return {
    prepare() {},
    run(count) {
      for (let i = 0; i < count; i++) wire(caseAt(cases, 7, first + i).value.value);
    },
  };
}

async function driverPath(): Promise<Path & { close(): Promise<void> }> {
  if (!fx.url) throw new Error('the driver path needs a server');
  const [{ drive }, { HttpClient, limitsFor }] = await Promise.all([from('engine/load.js'), from('engine/http.js')]);
  const http = new HttpClient(limitsFor(10_000), undefined, { sweptDeadlines: true });
  const spec = { method: 'POST', url: fx.url + fx.chatPath, headers: fx.headers, body: fx.small };
  let bad = 0;
  return {
    prepare() {},
    // One in flight: with more, how the replies of a native server fall into the reads of a client
    // slowed 50 times by valgrind would change the count from run to run.
    run: (count) =>
      drive({ http, step: { concurrency: 1, requests: count }, next: () => spec, onAnswer: (_s: unknown, a: { status?: number }) => void (a.status === 200 || bad++) }).then(() => {
        if (bad) throw new Error(`${bad} answers of the fixed-reply server were not 200`);
      }),
    close: () => http.close(),
  };
}

/** What the driver would cost on undici's lowest interface: `drive` given a client whose send is a
 * `dispatch` with a handler of its own (no response stream, no async iterator, one promise a request),
 * keeping what HttpClient keeps for a load (status, headers, the body's chunks, when each came). A
 * measure of the floor under the driver (docs/load.md), not a client of the kit. */
async function dispatchPath(): Promise<Path & { close(): Promise<void> }> {
  if (!fx.url) throw new Error('the dispatch path needs a server');
  const [{ drive }, { Pool }] = await Promise.all([from('engine/load.js'), import('undici')]);
  const url = new URL(fx.url);
  const pool = new Pool(url.origin, { connections: 1, pipelining: 1 });
  const spec = { method: 'POST', url: fx.url + fx.chatPath, headers: fx.headers, body: fx.small };
  const send = (s: typeof spec, _signal: unknown, _statusOnly: boolean, times: { sentAt: number; headersAt?: number; reads: number[] }) =>
    new Promise((resolve) => {
      times.sentAt = performance.now();
      const started = times.sentAt;
      const chunks: Buffer[] = [];
      let bytesRead = 0;
      let status: number | undefined;
      let headers: Record<string, string> = {};
      const done = (complete: boolean, error?: { kind: string; message: string }) =>
        resolve({ status, headers, body: Buffer.concat(chunks, bytesRead), bytesRead, complete, error, durationMs: Math.round(performance.now() - started) });
      pool.dispatch(
        { path: fx.chatPath, method: s.method, headers: s.headers, body: s.body },
        {
          onRequestStart() {},
          onResponseStart(_c: unknown, statusCode: number, raw: Record<string, string | string[]>) {
            times.headersAt = performance.now();
            status = statusCode;
            headers = {};
            for (const k in raw) headers[k] = Array.isArray(raw[k]) ? (raw[k] as string[]).join(', ') : (raw[k] as string);
          },
          onResponseData(_c: unknown, chunk: Buffer) {
            chunks.push(chunk);
            bytesRead += chunk.length;
            times.reads.push(bytesRead, performance.now());
          },
          onResponseEnd() {
            done(true);
          },
          onResponseError(_c: unknown, e: Error) {
            done(false, { kind: 'other', message: e.message });
          },
        },
      );
    });
  let bad = 0;
  return {
    prepare() {},
    run: (count) =>
      drive({ http: { send }, step: { concurrency: 1, requests: count }, next: () => spec, onAnswer: (_s: unknown, a: { status?: number }) => void (a.status === 200 || bad++) }).then(() => {
        if (bad) throw new Error(`${bad} answers of the fixed-reply server were not 200`);
      }),
    close: () => pool.close(),
  };
}

/** autocannon's client on the same request, one connection, `count` requests a window: what the
 * driver is held to (docs/load.md), counted the same way. Each window starts an instance (its
 * connection, its timers), a constant that the length of a window makes small. */
async function autocannonPath(): Promise<Path> {
  if (!fx.url) throw new Error('the autocannon path needs a server');
  const { default: autocannon } = await import('autocannon');
  const options = { url: fx.url + fx.chatPath, method: 'POST' as const, headers: fx.headers, body: fx.small, connections: 1, pipelining: 1 };
  return {
    prepare() {},
    run: async (count) => {
      if (!count) return;
      const r = await autocannon({ ...options, amount: count });
      if (r['2xx'] !== count) throw new Error(`autocannon: ${r['2xx']} of ${count} answers were 2xx`);
    },
  };
}

function open(name: PathName): Promise<Path & { close?(): Promise<void> }> {
  switch (name) {
    case 'mock.same':
      return mockPath('same');
    case 'mock.distinct':
      return mockPath('distinct');
    case 'mock.conversation':
      return mockPath('conversation');
    case 'mock.stream':
      return mockPath('stream');
    case 'kit.read-json':
      return readPath(false);
    case 'kit.read-stream':
      return readPath(true);
    case 'kit.judge-json':
      return judgePath(false);
    case 'kit.judge-stream':
      return judgePath(true);
    case 'load.driver':
      return driverPath();
    case 'fuzz.generate':
      return fuzzPath();
    case 'kit.floor-json':
      return floorPath();
    case 'load.dispatch':
      return dispatchPath();
    case 'load.autocannon':
      return autocannonPath();
  }
}

async function window(p: Path, count: number, label: string, slower = 0): Promise<void> {
  const runs = count + Math.round(count * slower);
  p.prepare(runs);
  // The window begins and ends with an empty young generation: the garbage of its requests is all
  // collected inside it, and the scavenge that empties it is the same constant in both lengths.
  gc!({ type: 'minor' });
  mark('between');
  await p.run(runs);
  gc!({ type: 'minor' });
  mark(label);
}

const missing: string[] = [];
mark('start-up');
for (const { name, warm, n, windows } of plan.paths) {
  let p: Awaited<ReturnType<typeof open>>;
  try {
    p = await open(name);
  } catch (e) {
    if (!(e instanceof Missing)) throw e;
    missing.push(name);
    continue;
  }
  mark(`${name} setup`);
  // Warm in windows as long as the measured ones, so that the code is optimized for what they run.
  const warmed = warm + Math.round((plan.shift ?? 0) * n);
  const slower = plan.slower?.[name] ?? 0;
  for (let done = 0; done < warmed; done += n) await window(p, Math.min(n, warmed - done), `${name} warm`, slower);
  // Empty windows: what a window costs besides its requests (the marks, the scavenges that bound it).
  for (let i = 0; i < 2; i++) await window(p, 0, `${name} ${i} 0`);
  for (let i = 0; i < windows; i++) await window(p, n, `${name} ${i} ${n}`, slower);
  await p.close?.();
}
// The observer is told of collections after they ran: one turn of the loop later.
await new Promise((resolve) => setImmediate(resolve));
writeFileSync(plan.labels, JSON.stringify({ labels, missing, majorGcs }));
mark('end');
process.exit(0);
