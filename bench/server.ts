// One server under test, in its own process so that its CPU and memory are its own:
//   node dist/bench/server.js mock|ceiling|aimock|floor [paced|no-dashboard]
// (aimock, bench/aimock.ts, and floor, the mock's adapter around a core that answers one fixed reply:
// unpaced only). Binds 127.0.0.1 on a free port, prints `port <n>` and sends {type:'ready', port}
// over IPC.
// Samples its RSS every 100 ms; each {type:'mark'} is answered with its CPU time, a clock, and the
// peak RSS since the previous mark (the peak then restarts). Leaves when the parent goes.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMock } from '../mock/core/handle.js';
import { startMockServer } from '../mock/http.js';
import { startAimock } from './aimock.js';
import { ceilingServer } from './ceiling.js';
import { capture, HELD_STREAM, mockConfig, SMALL, SMALL_STREAM } from './fixtures.js';

export interface Mark {
  type: 'mark';
  /** process.cpuUsage(), user + system, microseconds. */
  cpuUs: number;
  /** performance.now() of this process, ms. */
  now: number;
  rss: number;
  /** Highest sampled RSS since the previous mark. */
  peakRss: number;
  /** The kernel's high-water mark of the process's RSS (bytes). */
  maxRss: number;
}

const kind = process.argv[2];
const paced = process.argv[3] === 'paced';
const dashboard = process.argv[3] !== 'no-dashboard';
if (!['mock', 'ceiling', 'aimock', 'floor'].includes(kind) || ((kind === 'aimock' || kind === 'floor') && paced)) throw new Error('usage: server.js mock|ceiling|aimock|floor [paced|no-dashboard]');

const portOf = (server: Server) => (server.address() as AddressInfo).port;
let port: number;
if (kind === 'mock') {
  port = portOf((await startMockServer({ mock: createMock(mockConfig(paced)), dashboard })).server);
} else if (kind === 'floor') {
  // The mock's adapter as the bench's mock runs it, its core answering the one reply it gives SMALL:
  // what the mock would cost if its core cost nothing.
  const { status, headers, body } = capture(mockConfig(false), SMALL);
  const reply = { status, headers, body: body! };
  port = portOf((await startMockServer({ mock: { ...createMock(mockConfig(false)), handle: () => reply }, dashboard })).server);
} else if (kind === 'aimock') {
  port = await startAimock();
} else {
  const config = mockConfig(paced);
  const server = ceilingServer(capture(config, SMALL), capture(config, paced ? HELD_STREAM : SMALL_STREAM));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = portOf(server);
}

let peak = process.memoryUsage.rss();
setInterval(() => {
  const rss = process.memoryUsage.rss();
  if (rss > peak) peak = rss;
}, 100);

process.on('message', (m: { type?: string }) => {
  if (m?.type !== 'mark') return;
  const rss = process.memoryUsage.rss();
  const cpu = process.cpuUsage();
  const mark: Mark = { type: 'mark', cpuUs: cpu.user + cpu.system, now: performance.now(), rss, peakRss: Math.max(peak, rss), maxRss: process.resourceUsage().maxRSS * 1024 };
  peak = rss;
  process.send?.(mark);
});
// process.exit, not a kill: a --cpu-prof profile is written on the way out.
process.on('disconnect', () => process.exit(0));

process.stdout.write(`port ${port}\n`);
process.send?.({ type: 'ready', port });
