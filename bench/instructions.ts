// Instructions per request on the hot paths, the working tree against the last release, counted under
// valgrind's callgrind in one run (BENCH_ONLY=instructions npm run bench; npm run bench:gate fails past
// the tolerance). A count does not move with the machine's load or speed, as req/s and µs do.
//   paths: the mock's core on one request repeated, on distinct requests, on a stream; the kit reading
//   one JSON answer and one streamed answer (suites/answer.ts), and judging them as a load does (the
//   answer read, and every onEach rule and rule of the load suite: suites/load/judge.ts); the load
//   driver's cost per request (engine/load.ts with HttpClient's swept deadlines, against a fixed-reply
//   server in this process, which valgrind does not slow).
// How a count is made to repeat: bench/callgrind.ts (V8's flags, one dump per window) and
// bench/instructions-probe.ts (warm-up, windows of n requests and empty ones, the young generation
// emptied at each window's ends). A path's figure: each window's count less an empty window's, over
// n; V8 still deoptimizes now and then (a branch reached for the first time), which only ever adds to
// a window, so the figure is the cheapest window, and the spread shown is how far the next cheapest
// lies from it, and (BENCH_RUNS=2) how far a run whose windows sit half a window later lies.
// Environment: BENCH_BASELINE=<commit> (else bench/baseline.json's), BENCH_RUNS (1 or 2; default 2,
// 1 for the gate), BENCH_PATHS=<name,...> (a subset), BENCH_CALLGRIND=<dir> (keep the dumps there,
// for callgrind_annotate).
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMock } from '../mock/index.js';
import { basicBody } from '../suites/chat.js';
import { baselineFile, buildAt, resolveCommit, ROOT, workingTreeName, type BaselineFile } from './baseline-build.js';
import { NODE_FLAGS, underCallgrind, type Segments } from './callgrind.js';
import { ceilingServer } from './ceiling.js';
import { capture, CHAT_PATH, HEADERS, mockConfig, SMALL, SMALL_STREAM } from './fixtures.js';
import type { Fixtures, PathName } from './instructions-probe.js';

interface PathSpec {
  name: PathName;
  title: string;
  /** What of a build it runs (under dist/): a build without one does not have the path. */
  needs: string;
  /** A measure for comparison, counted in the working tree only (and never gated). */
  reference?: boolean;
  /** Requests of warm-up, the length of a window, how many windows. */
  warm: number;
  n: number;
  windows: number;
}

/** Sized so that a window is some 40 M instructions, and the warm-up past V8's last common recompile. */
export const PATHS: PathSpec[] = [
  { name: 'mock.same', needs: 'mock/core/handle.js', title: "the mock's core, one request repeated", warm: 2000, n: 1000, windows: 4 },
  { name: 'mock.distinct', needs: 'mock/core/handle.js', title: "the mock's core, every request distinct", warm: 3000, n: 500, windows: 5 },
  { name: 'mock.conversation', needs: 'mock/core/handle.js', title: "the mock's core, distinct conversations of 1.6 KB", warm: 2000, n: 300, windows: 4 },
  { name: 'mock.stream', needs: 'mock/core/handle.js', title: "the mock's core, a stream (with usage)", warm: 2000, n: 500, windows: 4 },
  { name: 'kit.read-json', needs: 'suites/answer.js', title: 'the kit reads a JSON answer', warm: 2000, n: 500, windows: 4 },
  { name: 'kit.read-stream', needs: 'suites/answer.js', title: 'the kit reads a streamed answer', warm: 600, n: 100, windows: 4 },
  { name: 'kit.judge-json', needs: 'suites/load/judge.js', title: 'a load judges a JSON answer', warm: 2000, n: 500, windows: 4 },
  { name: 'kit.judge-stream', needs: 'suites/load/judge.js', title: 'a load judges a streamed answer', warm: 600, n: 100, windows: 4 },
  { name: 'load.driver', needs: 'engine/load.js', title: 'the load driver, per request', warm: 1000, n: 200, windows: 4 },
  { name: 'fuzz.generate', needs: 'suites/fuzz/session.js', title: 'the fuzz generator, per case', warm: 1000, n: 200, windows: 4 },
  // References, not paths of the kit: the floor under judging (parse and schema alone), and the driver
  // on undici's dispatch with a handler of its own.
  { name: 'kit.floor-json', needs: 'schemas/index.js', reference: true, title: '(reference) a JSON answer parsed and schema-checked, nothing else', warm: 2000, n: 500, windows: 4 },
  { name: 'load.dispatch', needs: 'engine/load.js', reference: true, title: "(reference) the driver on undici's dispatch", warm: 2000, n: 200, windows: 4 },
  { name: 'load.autocannon', needs: 'engine/load.js', reference: true, title: '(reference) autocannon, per request', warm: 1000, n: 1000, windows: 3 },
];

/** The processes of one build: each pays Node's start-up under valgrind once (some 0.6 G
 * instructions), and two run at a time, one a core. */
const GROUPS: PathName[][] = [
  ['mock.same', 'mock.distinct', 'mock.conversation', 'mock.stream', 'load.driver', 'load.dispatch', 'load.autocannon'],
  ['kit.read-json', 'kit.read-stream', 'kit.judge-json', 'kit.judge-stream', 'fuzz.generate', 'kit.floor-json'],
];

/** BENCH_SLOWER=path:fraction,...: the working tree's windows run that fraction more requests than they
 * are counted for, as code that much more expensive would; the baseline's are left alone. How the gate
 * is shown to fail a slowdown of any path (docs/performance.md). */
export function slowerOf(text: string | undefined): Partial<Record<PathName, number>> | undefined {
  if (!text) return undefined;
  const out: Partial<Record<PathName, number>> = {};
  for (const part of text.split(',')) {
    const [name, fraction] = part.split(':');
    const f = Number(fraction);
    if (!PATHS.some((p) => p.name === name) || !(f > 0 && f < 1))
      throw new Error(`BENCH_SLOWER: "${part}" is not path:fraction (a path of ${PATHS.map((p) => p.name).join(', ')}; a fraction such as 0.05)`);
    out[name as PathName] = f;
  }
  return out;
}

export interface Figure {
  /** Instructions per request: the cheapest window. */
  value: number;
  /** Every window's figure, in order. */
  windows: number[];
  /** (next cheapest - cheapest) / cheapest. */
  spread: number;
}

/** The figures of each path in one process's segments. */
export function figures(segs: Segments, specs: readonly PathSpec[]): Map<PathName, Figure> {
  const out = new Map<PathName, Figure>();
  for (const spec of specs) {
    const of = (length: number) => segs.segments.filter((s) => s.label.startsWith(`${spec.name} `) && s.label.endsWith(` ${length}`) && !s.label.endsWith(' warm')).map((s) => s.instructions);
    const empty = of(0);
    const full = of(spec.n);
    if (!empty.length || !full.length) continue;
    const zero = Math.min(...empty);
    const windows = full.map((t) => (t - zero) / spec.n);
    if (windows.some((w) => w <= 0)) throw new Error(`${spec.name}: a window counted less than an empty one: callgrind's collection was toggled wrong`);
    const sorted = [...windows].sort((a, b) => a - b);
    out.set(spec.name, { value: sorted[0], windows, spread: sorted.length > 1 ? (sorted[1] - sorted[0]) / sorted[0] : Number.NaN });
  }
  return out;
}

/** Ten turns of a chat, as a frontend sends them all with each new question: 1.6 KB, a few brackets
 * a message (the small request is shorter than the length test of the mock's limits, which spares it their scan). */
const CONVERSATION = Array.from({ length: 10 }, (_, i) =>
  i % 2
    ? { role: 'assistant', content: `Here is what I found about step ${i}: the configuration takes a list of models, each with its limits, and the server reads it once at start.` }
    : { role: 'user', content: `Thanks. Now, for step ${i + 1}, how do I set the timeout of a request, and what happens to a stream that is cut short by it?` },
);

/** What the parent makes once, from the working tree, for every build alike. */
export function fixtures(url: string): Fixtures {
  const headers = Object.fromEntries(Object.entries(HEADERS).map(([k, v]) => [k.toLowerCase(), v]));
  const model = SMALL.model;
  const basic = basicBody(model);
  const basicStream = { ...basic, stream: true, stream_options: { include_usage: true } };
  const mock = createMock();
  const json = mock.handle({ method: 'POST', path: CHAT_PATH, headers, body: JSON.stringify(basic) });
  const stream = mock.handle({ method: 'POST', path: CHAT_PATH, headers, body: JSON.stringify(basicStream) });
  if (!('body' in json) || !('stream' in stream)) throw new Error('the mock did not answer the fixtures');
  const id = (JSON.parse(String(json.body)) as { id: string }).id;
  let frames = '';
  for (const f of stream.stream) if ('bytes' in f) frames += typeof f.bytes === 'string' ? f.bytes : Buffer.from(f.bytes).toString('utf8');
  const streamId = (JSON.parse(frames.slice('data: '.length, frames.indexOf('\n'))) as { id: string }).id;
  if (id.length < 10 || streamId.length !== id.length) throw new Error(`ids of unexpected lengths: ${id}, ${streamId}`);
  return {
    model,
    chatPath: CHAT_PATH,
    headers,
    small: JSON.stringify(SMALL),
    smallStream: JSON.stringify(SMALL_STREAM),
    conversation: JSON.stringify({ ...SMALL, messages: CONVERSATION, seed: 1_000_000_000 }),
    basicBody: basic,
    basicStreamBody: basicStream,
    jsonAnswer: { status: json.status, headers: json.headers, body: String(json.body) },
    streamAnswer: { status: stream.status, headers: stream.headers, body: frames.replaceAll(streamId, id) },
    idTemplate: id,
    url,
  };
}

interface Build {
  name: string;
  dir: string;
  /** The full hash, for the baseline. */
  sha?: string;
}

interface Job {
  build: Build;
  run: number;
  specs: PathSpec[];
}

export interface Counted {
  baseline: Build;
  today: Build;
  paths: PathSpec[];
  /** Per build name, per path: the figure of each run. */
  figures: Map<string, Map<PathName, Figure[]>>;
  missing: Map<string, Set<PathName>>;
  majorGcs: number;
  wallMs: number;
  /** CPU seconds of the valgrind processes (and the baseline's build). */
  cpuSeconds: number;
}

/** CPU seconds of this process's children that ended (Linux: /proc/self/stat's cutime and cstime),
 * NaN elsewhere: what the valgrind processes cost, whatever else shares the machine. */
export function childrenCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // From the state (field 3): cutime and cstime are fields 16 and 17, in ticks of 1/100 s.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Whether valgrind can be run here. */
export function hasValgrind(): boolean {
  return spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Counts every path of `names` in the working tree and in the baseline, `runs` times each;
 * `comparedOnly`: not the paths the baseline does not have (the gate, which cannot hold them). */
export async function count(names: readonly PathName[], runs: number, comparedOnly = false): Promise<Counted> {
  const started = performance.now();
  const cpu0 = childrenCpuSeconds();
  const commit = process.env.BENCH_BASELINE || baselineFile().commit;
  const sha = resolveCommit(commit);
  const baseline = { name: sha.slice(0, 7), dir: buildAt(sha), sha };
  const today = { name: workingTreeName(), dir: ROOT };
  const paths = PATHS.filter((p) => names.includes(p.name) && (!comparedOnly || (!p.reference && existsSync(join(baseline.dir, 'dist', p.needs)))));
  const config = mockConfig(false);
  const server = ceilingServer(capture(config, SMALL), capture(config, SMALL_STREAM));
  server.keepAliveTimeout = 600_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const fx = fixtures(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const keep = process.env.BENCH_CALLGRIND;
  const slower = slowerOf(process.env.BENCH_SLOWER);
  const jobs: Job[] = [];
  for (let run = 0; run < runs; run++)
    for (const build of [today, baseline])
      for (const group of GROUPS) {
        const specs = paths.filter((p) => group.includes(p.name) && (build === today || !p.reference));
        if (specs.length) jobs.push({ build, run, specs });
      }
  const result: Counted = { baseline, today, paths, figures: new Map(), missing: new Map(), majorGcs: 0, wallMs: 0, cpuSeconds: 0 };
  const one = async (job: Job) => {
    const where = keep ? join(keep, `${job.build.name}-${job.run}-${job.specs[0].name}`) : undefined;
    if (where) mkdirSync(where, { recursive: true });
    const plan = {
      build: job.build.dir,
      fixtures: fx,
      shift: job.run * 0.5,
      paths: job.specs.map(({ name, warm, n, windows }) => ({ name, warm, n, windows })),
      ...(job.build === today && slower ? { slower } : {}),
    };
    const segs = await underCallgrind(plan, where);
    process.stdout.write(`  ${job.build.name} run ${job.run + 1}: ${job.specs.map((s) => s.name).join(', ')} in ${(segs.ms / 1000).toFixed(0)} s\n`);
    result.majorGcs += segs.majorGcs;
    const missing = result.missing.get(job.build.name) ?? new Set();
    for (const m of segs.missing) missing.add(m as PathName);
    result.missing.set(job.build.name, missing);
    const byPath = result.figures.get(job.build.name) ?? new Map<PathName, Figure[]>();
    for (const [name, f] of figures(segs, job.specs)) byPath.set(name, [...(byPath.get(name) ?? []), f]);
    result.figures.set(job.build.name, byPath);
  };
  try {
    // Two at a time: the machine's two cores (CI's too); the longest jobs first.
    const queue = [...jobs].sort((a, b) => weight(b) - weight(a));
    await Promise.all(
      [0, 1].map(async () => {
        for (let job = queue.shift(); job; job = queue.shift()) await one(job);
      }),
    );
  } finally {
    server.close();
  }
  result.wallMs = performance.now() - started;
  result.cpuSeconds = childrenCpuSeconds() - cpu0;
  return result;
}

/** About how long a job runs: the requests it sends, weighed by a path's cost. */
const weight = (job: Job) => job.specs.reduce((n, s) => n + (s.warm + s.n * s.windows) * (s.name.endsWith('stream') && s.name.startsWith('kit') ? 6 : 1), 0);

/** One build's figure of a path over its runs: their mean, and the widest spread (within a run, or between runs). */
export function combined(fs: readonly Figure[] | undefined): { value: number; spread: number } | undefined {
  if (!fs?.length) return undefined;
  const values = fs.map((f) => f.value);
  const value = values.reduce((a, b) => a + b, 0) / values.length;
  const between = (Math.max(...values) - Math.min(...values)) / Math.min(...values);
  return { value, spread: Math.max(between, ...fs.map((f) => (Number.isNaN(f.spread) ? 0 : f.spread))) };
}

export interface Verdict {
  path: PathSpec;
  baseline?: { value: number; spread: number };
  today?: { value: number; spread: number };
  ratio?: number;
  /** The ratio the path is held to: 1, or a cost taken on purpose (bench/baseline.json's accepted). */
  held?: number;
  tolerance?: number;
  over: boolean;
}

/** The gate's rule: a path compared in both builds fails past its tolerance over the ratio it is held
 * to. The tolerance is the file's, or twice the wider of the two builds' spreads on the path when that
 * is wider (a path that does not repeat to within the tolerance cannot be held to it; the spread is
 * printed, so it is seen). */
export function verdicts(c: Counted, file: BaselineFile): Verdict[] {
  return c.paths.map((path) => {
    const baseline = combined(c.figures.get(c.baseline.name)?.get(path.name));
    const today = combined(c.figures.get(c.today.name)?.get(path.name));
    if (!baseline || !today) return { path, baseline, today, over: false };
    const tol = Math.max(file.tolerance, 2 * Math.max(baseline.spread, today.spread));
    // Held to what was accepted only while the baseline is the one it was accepted against.
    const held = (c.baseline.sha?.startsWith(file.commit) && file.accepted?.[path.name]?.ratio) || 1;
    const ratio = today.value / baseline.value;
    return { path, baseline, today, ratio, held, tolerance: tol, over: ratio > held * (1 + tol) };
  });
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function report(c: Counted, vs: readonly Verdict[]): string {
  const lines = [
    `| path | ${c.baseline.name} | ${c.today.name} | ratio | spread (${c.baseline.name} / ${c.today.name}) | held to | gate |`,
    '|---|---|---|---|---|---|---|',
    ...vs.map((v) => {
      const none = (build: string) => (c.missing.get(build)?.has(v.path.name) ? 'not in this build' : '-');
      return `| ${v.path.title} | ${v.baseline ? int(v.baseline.value) : none(c.baseline.name)} | ${v.today ? int(v.today.value) : none(c.today.name)} | ${v.ratio ? v.ratio.toFixed(3) : ''} | ${v.baseline ? pct(v.baseline.spread) : '-'} / ${v.today ? pct(v.today.spread) : '-'} | ${v.held && v.held !== 1 ? `${v.held.toFixed(3)} (accepted)` : v.held ? '1' : ''} | ${v.ratio === undefined ? 'not compared' : `${v.over ? 'OVER' : 'within'} ${pct(v.tolerance!)}`} |`;
    }),
  ];
  return lines.join('\n');
}

/** BENCH_ONLY=instructions, and the gate (`gate`: exit code 1 past a tolerance). */
export async function instructionsBench(gate = false): Promise<boolean> {
  if (!hasValgrind()) {
    console.log('\ninstructions: valgrind is not installed (Debian: apt-get install valgrind): not counted');
    return !gate;
  }
  const file = baselineFile();
  const names = (process.env.BENCH_PATHS ? process.env.BENCH_PATHS.split(',') : PATHS.map((p) => p.name)) as PathName[];
  const runs = Math.max(1, Math.min(2, Number(process.env.BENCH_RUNS) || (gate ? 1 : 2)));
  console.log(
    `\ninstructions per request under callgrind, the working tree against ${process.env.BENCH_BASELINE || `${file.commit} (bench/baseline.json)`}, ${runs} run${runs > 1 ? 's' : ''} each; Node ${process.version} ${NODE_FLAGS.join(' ')}`,
  );
  if (process.env.BENCH_SLOWER)
    console.log(
      `injected on purpose (BENCH_SLOWER), in the working tree only: ${Object.entries(slowerOf(process.env.BENCH_SLOWER)!)
        .map(([p, f]) => `${p} +${(f! * 100).toFixed(1)}%`)
        .join(', ')}`,
    );
  const c = await count(names, runs, gate);
  const left = names.filter((n) => !c.paths.some((p) => p.name === n));
  const references = left.filter((n) => PATHS.find((p) => p.name === n)?.reference);
  const absent = left.filter((n) => !references.includes(n));
  if (references.length) console.log(`not run: ${references.join(', ')} (references, never gated: BENCH_ONLY=instructions counts them)`);
  if (absent.length) console.log(`not run: ${absent.join(', ')} (the baseline does not have them: the gate cannot hold them)`);
  const vs = verdicts(c, file);
  console.log(`\n${report(c, vs)}\n`);
  // Every figure behind the table: a reader of the table can see what its spread is made of.
  for (const path of c.paths)
    for (const build of [c.baseline, c.today]) {
      const runs = c.figures.get(build.name)?.get(path.name);
      if (runs) console.log(`  ${path.name} ${build.name}: ${runs.map((f, i) => `run ${i + 1} ${int(f.value)} (windows ${f.windows.map(int).join(', ')})`).join('; ')}`);
    }
  console.log(
    '(a figure is the cheapest window of n requests after the warm-up, less an empty window; spread: how far the next cheapest window, or the other run, lies from it; a path the baseline does not have is not compared)',
  );
  if (c.majorGcs) console.log(`NOTE: ${c.majorGcs} mark-compact collections ran: a window that holds one counts it, and the figures may not repeat`);
  const compared = vs.filter((v) => v.ratio !== undefined).map((v) => v.path.name);
  console.log(`compared: ${compared.join(', ') || 'none'}; instructions bench took ${(c.wallMs / 1000).toFixed(0)} s (${c.cpuSeconds.toFixed(0)} s of CPU in its processes)`);
  const over = vs.filter((v) => v.over);
  if (over.length)
    console.log(`\n${gate ? 'GATE FAILED' : 'OVER THE TOLERANCE'}: ${over.map((v) => `${v.path.name} ${v.ratio!.toFixed(3)} (> ${(v.held! * (1 + v.tolerance!)).toFixed(3)})`).join('; ')}`);
  else if (gate) console.log('\ngate: every compared path within its tolerance');
  return !over.length;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  instructionsBench(process.argv.includes('--gate')).then(
    (ok) => process.exit(ok ? 0 : 1),
    (e) => (console.error(e), process.exit(1)),
  );
