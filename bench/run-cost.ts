// What a default run costs a server: the requests it sends (counted by the server, by route) and its
// wall time, against the embedded mock and against a mock that answers every request 200 ms late,
// and the same with --all-models. With BENCH_COMPARE=<dir> (another checkout of this repository,
// built), the same figures of that build are measured in the same run, alternating, so a change's
// cost is read side by side: before | after | ratio.
//   node dist/bench/run-cost.js        (or npm run bench; BENCH_ONLY=run-cost for this part alone)
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** How a build is driven: the same three modules in every checkout. */
interface Build {
  name: string;
  createMock(config?: unknown): { handle(req: unknown): unknown; config: { keys: { key: string }[] } };
  startMockServer(opts: { mock: unknown }): Promise<{ url: string; close(): Promise<void> }>;
  runSession(opts: Record<string, unknown>): Promise<{ exitCode: number; results: unknown[] }>;
  allModels: boolean;
}

async function load(dir: string, name: string): Promise<Build> {
  const at = (rel: string) => import(pathToFileURL(resolve(dir, rel)).href);
  const [handle, http, session] = await Promise.all([at('dist/mock/core/handle.js'), at('dist/mock/http.js'), at('dist/suites/session.js')]);
  // A build from before --all-models would ignore the option: its "all models" row is left out.
  const allModels = existsSync(resolve(dir, 'dist/suites/paths.js'));
  return { name, createMock: handle.createMock, startMockServer: http.startMockServer, runSession: session.runSession, allModels };
}

type Route = 'chat, streamed' | 'chat, JSON' | 'models' | 'catalog' | 'other';

interface Cost {
  requests: number;
  byRoute: Record<Route, number>;
  wallMs: number;
  exitCode: number;
}

function route(req: { method?: string; path?: string; body?: unknown }): Route {
  const path = String(req.path ?? '').split('?')[0];
  if (path === '/v1/models') return 'models';
  if (path === '/models.json') return 'catalog';
  if (path !== '/v1/chat/completions') return 'other';
  const text = typeof req.body === 'string' ? req.body : req.body instanceof Uint8Array ? Buffer.from(req.body).toString('utf8') : '';
  return /"stream"\s*:\s*true/.test(text) ? 'chat, streamed' : 'chat, JSON';
}

/** The default configuration with eight models for the primary key, alike but for their ids: a
 * service that lists many models, where --all-models goes broad and the default run does not. */
async function eightModels(): Promise<unknown> {
  const { DEFAULT_CONFIG } = await import('../mock/config/default.js');
  const chat = DEFAULT_CONFIG.models.find((m) => !m.reasoning)!;
  const models = Array.from({ length: 8 }, (_, i) => ({ ...chat, id: `mock-chat-${i + 1}`, name: `Mock Chat ${i + 1}` }));
  return {
    ...DEFAULT_CONFIG,
    models: [...models, ...DEFAULT_CONFIG.models.filter((m) => m.id !== chat.id)],
    keys: [{ ...DEFAULT_CONFIG.keys[0], models: models.map((m) => m.id) }, DEFAULT_CONFIG.keys[1]],
  };
}

/** One run of `build`'s kit against its own mock (with `config`), every answer `delayMs` late. */
async function measure(build: Build, delayMs: number, allModels: boolean, config?: unknown): Promise<Cost> {
  const base = build.createMock(config);
  const byRoute: Record<Route, number> = { 'chat, streamed': 0, 'chat, JSON': 0, models: 0, catalog: 0, other: 0 };
  let requests = 0;
  const mock = {
    ...base,
    config: base.config,
    handle(req: { method?: string; path?: string; body?: unknown }) {
      requests++;
      byRoute[route(req)]++;
      const reply = base.handle(req) as Record<string, unknown>;
      if (!delayMs || 'raw' in reply) return reply;
      // A late server: the whole body, or the first write of a stream, waits delayMs more.
      if ('stream' in reply) {
        const frames = [...(reply.stream as Iterable<{ delayMs: number }>)];
        return { ...reply, stream: frames.map((f, i) => (i === 0 ? { ...f, delayMs: f.delayMs + delayMs } : f)) };
      }
      return { ...reply, delayMs: ((reply.delayMs as number | undefined) ?? 0) + delayMs };
    },
  };
  const server = await build.startMockServer({ mock });
  try {
    const [primary, second] = base.config.keys;
    const t0 = performance.now();
    const report = await build.runSession({ baseUrl: server.url, apiKey: primary.key, secondApiKey: second?.key, allModels });
    return { requests, byRoute, wallMs: performance.now() - t0, exitCode: report.exitCode };
  } finally {
    await server.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function runCost(): Promise<void> {
  const builds = [await load(process.cwd(), 'after')];
  if (process.env.BENCH_COMPARE) builds.unshift(await load(process.env.BENCH_COMPARE, 'before'));
  const REPEATS = 3;
  const eight = await eightModels();
  const cases = [
    { name: 'default run, embedded mock', delayMs: 0, allModels: false, config: undefined },
    { name: 'default run, mock 200 ms late', delayMs: 200, allModels: false, config: undefined },
    { name: 'eight models listed, default run', delayMs: 0, allModels: false, config: eight },
    { name: 'eight models listed, --all-models', delayMs: 0, allModels: true, config: eight },
  ];
  console.log(`run cost: ${builds.map((b) => b.name).join(' vs ')}, median of ${REPEATS} runs each, alternating${builds.length > 1 ? ` (before: ${process.env.BENCH_COMPARE})` : ''}\n`);
  const rows: string[][] = [];
  for (const c of cases) {
    const costs = new Map<string, Cost[]>(builds.map((b) => [b.name, []]));
    for (let i = 0; i < REPEATS; i++) {
      // before, after, after, before...: drift weighs on both alike.
      const order = i % 2 ? [...builds].reverse() : builds;
      for (const b of order) if (!c.allModels || b.allModels) costs.get(b.name)!.push(await measure(b, c.delayMs, c.allModels, c.config));
    }
    const figures = builds.map((b) => {
      const list = costs.get(b.name)!;
      return list.length ? { requests: list[0].requests, byRoute: list[0].byRoute, wallMs: median(list.map((x) => x.wallMs)), exitCode: list[0].exitCode } : undefined;
    });
    const cell = (f: Cost | undefined, pick: (f: Cost) => string) => (f ? pick(f) : '-');
    const ratio = (pick: (f: Cost) => number) => (figures.length > 1 && figures[0] && figures[1] ? `${(pick(figures[1]) / pick(figures[0])).toFixed(2)}x` : '');
    rows.push([`${c.name}: requests`, ...figures.map((f) => cell(f, (x) => String(x.requests))), ratio((x) => x.requests)]);
    rows.push([`${c.name}: wall time`, ...figures.map((f) => cell(f, (x) => `${(x.wallMs / 1000).toFixed(2)} s`)), ratio((x) => x.wallMs)]);
    const after = figures.at(-1)!;
    console.log(
      `${c.name}: ${after.requests} requests (${Object.entries(after.byRoute)
        .filter(([, n]) => n)
        .map(([r, n]) => `${r} ${n}`)
        .join(', ')}; the reachability probe included), exit code ${after.exitCode}`,
    );
  }
  const widths = rows[0].map((_, i) => Math.max(...[['measure', ...builds.map((b) => b.name), builds.length > 1 ? 'ratio' : ''], ...rows].map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((x, i) => (x ?? '').padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${line(['measure', ...builds.map((b) => b.name), builds.length > 1 ? 'ratio' : ''])}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  runCost().then(
    () => process.exit(0),
    (e) => (console.error(e), process.exit(1)),
  );
