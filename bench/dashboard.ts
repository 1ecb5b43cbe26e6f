// The dashboard's cost: the mock's throughput with a dashboard page open, streaming the journal
// (/__mock/events), against the same mock with none, side by side in one run: one server process,
// segments alternating none, page, page, none so that drift weighs on both alike. The "page" is a
// reader in this process that takes the event stream as the page's EventSource does and parses
// every batch (the page's rendering is the browser's work, in its own process). And the cost of
// serving a dashboard at all while no page is open (each request timed, for the rows a page shows
// later): the same mock with none against a second process started without a dashboard, in the
// same alternation. Reported, never asserted in a test: targets >= 90% with a page, >= 97% with none.
//   BENCH_ONLY=dashboard npm run bench   (BENCH_SECONDS, BENCH_CONNECTIONS as for the rest)
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { CHAT_PATH, HEADERS, SMALL, SMALL_STREAM } from './fixtures.js';
import type { Mark } from './server.js';

const SECONDS = num('BENCH_SECONDS', 5);
const CONNECTIONS = num('BENCH_CONNECTIONS', 32);
const TARGET = 0.9;
const SERVED_TARGET = 0.97;

function num(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** The mock in its own process (bench/server.ts), its CPU time read at each mark (bench/hostile-mock.ts too). */
export async function startMock(dashboard = true): Promise<{ url: string; mark(): Promise<Mark>; stop(): Promise<void> }> {
  const child = fork(fileURLToPath(new URL('./server.js', import.meta.url)), ['mock', ...(dashboard ? [] : ['no-dashboard'])], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const waiting: ((m: Mark) => void)[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mock exited (${code}) before it was ready`)));
    child.on('message', (m: { type: string; port?: number }) => (m.type === 'ready' ? resolve(m.port!) : m.type === 'mark' && waiting.shift()?.(m as Mark)));
  });
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${port}`,
    mark: () => new Promise<Mark>((resolve) => (waiting.push(resolve), child.send({ type: 'mark' }))),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

/** An open page's share of the work: the event stream read and each batch parsed. */
async function openPage(url: string): Promise<{ rows(): number; close(): void }> {
  const ctl = new AbortController();
  const res = await request(`${url}/__mock/events`, { signal: ctl.signal });
  let rows = 0;
  let buffer = '';
  res.body.setEncoding('utf8');
  res.body.on('data', (piece: string) => {
    buffer += piece;
    let at: number;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      if (block.startsWith('event: rows\ndata: ')) rows += (JSON.parse(block.slice(18)) as unknown[]).length;
    }
  });
  res.body.on('error', () => {});
  return { rows: () => rows, close: () => ctl.abort() };
}

interface Tally {
  completed: number;
  seconds: number;
  cpuMs: number;
  rows: number;
}

async function segment(mock: Awaited<ReturnType<typeof startMock>>, body: object, seconds: number, withPage: boolean): Promise<Tally> {
  const page = withPage ? await openPage(mock.url) : undefined;
  const m0 = await mock.mark();
  const r = await autocannon({ url: mock.url + CHAT_PATH, method: 'POST', headers: HEADERS, body: JSON.stringify(body), connections: CONNECTIONS, pipelining: 1, duration: seconds, timeout: 10 });
  const m1 = await mock.mark();
  // The last batch is on its way: given its flush interval to arrive.
  await new Promise((resolve) => setTimeout(resolve, 250));
  page?.close();
  if (r.non2xx + r.errors + r.timeouts) throw new Error(`the mock answered ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  return { completed: r['2xx'], seconds: r.duration, cpuMs: (m1.cpuUs - m0.cpuUs) / 1000, rows: page?.rows() ?? 0 };
}

const add = (a: Tally, b: Tally): Tally => ({ completed: a.completed + b.completed, seconds: a.seconds + b.seconds, cpuMs: a.cpuMs + b.cpuMs, rows: a.rows + b.rows });
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

export async function dashboardBench(): Promise<void> {
  console.log(
    `dashboard cost: the mock with a page open streaming the journal vs none, and serving a dashboard with no page open vs a mock without one, alternating (${SECONDS} s per side and measure, ${CONNECTIONS} connections)`,
  );
  const mock = await startMock();
  const bare = await startMock(false);
  const lines: string[][] = [];
  const missed: string[] = [];
  try {
    for (const [name, body] of [
      ['non-streaming req/s', SMALL],
      ['complete streams/s', SMALL_STREAM],
    ] as const) {
      await segment(bare, body, Math.min(1, SECONDS), false);
      await segment(mock, body, Math.min(1, SECONDS), false);
      await segment(mock, body, Math.min(1, SECONDS), true);
      const tallies: Record<'off' | 'none' | 'page', Tally[]> = { off: [], none: [], page: [] };
      for (const arm of ['off', 'none', 'page', 'page', 'none', 'off'] as const) tallies[arm].push(await segment(arm === 'off' ? bare : mock, body, SECONDS / 3, arm === 'page'));
      const [o, n, p] = (['off', 'none', 'page'] as const).map((arm) => tallies[arm].reduce(add));
      const rate = (t: Tally) => t.completed / t.seconds;
      const served = rate(n) / rate(o);
      const ratio = rate(p) / rate(n);
      if (served < SERVED_TARGET) missed.push(`${name} (no page)`);
      if (ratio < TARGET) missed.push(`${name} (page open)`);
      const cpu = (t: Tally) => int((t.cpuMs / t.completed) * 1000);
      lines.push([
        name,
        int(rate(o)),
        int(rate(n)),
        int(rate(p)),
        pct(served),
        pct(ratio),
        `${cpu(o)} / ${cpu(n)} / ${cpu(p)} µs`,
        `${int(p.rows)} of ${int(p.completed)}`,
        served >= SERVED_TARGET && ratio >= TARGET ? 'yes' : 'MISSED',
      ]);
    }
  } finally {
    await mock.stop();
    await bare.stop();
  }
  const head = ['measure', 'no dashboard', 'no page', 'page open', 'no page / none', 'page / no page', 'server CPU/req (none / no page / page)', 'rows the page got', '>= 97%, >= 90%'];
  const width = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i])).join(' | ')} |`;
  console.log([line(head), `|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(line)].join('\n'));
  console.log(
    '(rows: a page is sent the newest 500 rows per 100 ms batch at most, each request at its arrival and again at its end, coalesced;\n' +
      ' under this load it keeps up with the newest, which is all it shows. With no page open the mock still times each answer\n' +
      ' and labels unknown keys, so that the rows a page shows later read as live ones.)\n',
  );
  if (missed.length) console.log(`MISSED: dashboard cost for ${missed.join(', ')}\n`);
}
