// A run's memory against a server whose every chat answer is 100 MB: the kit reads each up to its
// cap (--max-body, 8 MiB) and keeps only a slice of it, so its peak RSS stays near one body's cap
// whatever the number of models. The kit runs in a child process (its RSS its own) against a
// server in this one; one model, then eight, side by side.
//   node dist/bench/memory.js        (or npm run bench; BENCH_ONLY=memory for this part alone)
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ANSWER_BYTES = 100 * 1024 * 1024;
const MODELS = Array.from({ length: 8 }, (_, i) => `big-${i + 1}`);
const KEY = 'sk-bench-memory-000000000000000000';

/** Lists eight models; answers every chat request with 100 MB, written as fast as it is read. */
async function hugeServer(): Promise<{ url: string; close(): Promise<void> }> {
  const piece = Buffer.alloc(64 * 1024, 'a');
  const server = createServer((req, res) => {
    req.resume();
    if (req.url?.startsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: MODELS.map((id) => ({ id, object: 'model', created: 1_750_000_000, owned_by: 'bench' })) }));
      return;
    }
    if (!req.url?.startsWith('/v1/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    let sent = 0;
    const write = () => {
      while (sent < ANSWER_BYTES) {
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', write);
      }
      res.end();
    };
    res.on('error', () => {});
    write();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** In the child: one run, then its peak RSS (bytes) and what it sent, to the parent. */
async function child(baseUrl: string, models: string[]): Promise<void> {
  const { runSession } = await import(pathToFileURL(fileURLToPath(new URL('../suites/session.js', import.meta.url))).href);
  // What the run holds: its live memory (heap and buffers) right after a collection, sampled all
  // along. The peak RSS above it is garbage not yet collected, which grows with the traffic.
  const gc = (globalThis as { gc?: () => void }).gc!;
  let held = 0;
  const sample = setInterval(() => {
    gc();
    const m = process.memoryUsage();
    held = Math.max(held, m.heapUsed + m.external);
  }, 250);
  const report = await runSession({ baseUrl, apiKey: KEY, models });
  clearInterval(sample);
  process.send!({ maxRss: process.resourceUsage().maxRSS * 1024, held, requests: report.requestsSent });
}

async function measure(url: string, models: string[]): Promise<{ maxRss: number; held: number; requests: number; ms: number }> {
  const started = performance.now();
  const proc = fork(fileURLToPath(import.meta.url), ['child', url, ...models], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: ['--expose-gc'] });
  const [message] = (await once(proc, 'message')) as [{ maxRss: number; held: number; requests: number }];
  await once(proc, 'exit');
  return { ...message, ms: performance.now() - started };
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

export async function memory(): Promise<void> {
  const server = await hugeServer();
  try {
    console.log(`\nmemory: every chat answer ${mb(ANSWER_BYTES)}, read to the 8 MiB cap; the kit in a child process\n`);
    const runs = [] as [number, Awaited<ReturnType<typeof measure>>][];
    for (const n of [1, 4, 8]) runs.push([n, await measure(server.url, MODELS.slice(0, n))]);
    console.log(`| models under test | requests | live memory held (peak, after collection) | peak RSS | run |\n|---|---|---|---|---|`);
    for (const [n, m] of runs) console.log(`| ${n} | ${m.requests} | ${mb(m.held)} | ${mb(m.maxRss)} | ${(m.ms / 1000).toFixed(1)} s |`);
    const [one, eight] = [runs[0][1], runs[2][1]];
    console.log(`\neight models / one: held ${(eight.held / one.held).toFixed(2)}x (target: near 1, not growing with the count), peak RSS ${(eight.maxRss / one.maxRss).toFixed(2)}x`);
  } finally {
    await server.close();
  }
}

if (process.argv[2] === 'child') child(process.argv[3], process.argv.slice(4)).catch((e) => (console.error(e), process.exit(1)));
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  memory().then(
    () => process.exit(0),
    (e) => (console.error(e), process.exit(1)),
  );
