// `conformance clients` against the embedded mock, as a user runs it: every client, then each client
// alone, three times each in turn (so that drift weighs on all alike). Per command: its wall time and
// the CPU of its processes, the run's own, the clients' and Chromium's (this process's children,
// /proc/self/stat), its longest flow, and what is left besides the flows: start-up (the command, the
// embedded mock, the clients' process, their libraries, Chromium), the checks the flows rest on, and
// the end. The flows of one client run at once, so its longest flow is the flows' share of the wall.
//   BENCH_ONLY=clients npm run bench      Environment: BENCH_CLIENT_RUNS (default 3).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childrenCpuSeconds } from './instructions.js';

const BIN = fileURLToPath(new URL('../bin/conformance.js', import.meta.url));
const RUNS = Math.max(1, Number(process.env.BENCH_CLIENT_RUNS) || 3);
const CLIENTS = ['openai', 'ai-sdk', 'langchain', 'openai-browser'];
/** The target of issue 44: every client, on two quiet cores. */
const TARGET_S = 10;

interface Measure {
  wallS: number;
  cpuS: number;
  longestFlowS: number;
  exit: number | null;
}

function once(args: string[], json: string): Promise<Measure> {
  const cpu0 = childrenCpuSeconds();
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'clients', ...args, '--reporter', `json=${json}`], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (exit) => {
      const wallS = (performance.now() - t0) / 1000;
      const flows = (JSON.parse(readFileSync(json, 'utf8')) as { clients?: { results: { durationMs: number }[] } }).clients?.results ?? [];
      resolve({ wallS, cpuS: childrenCpuSeconds() - cpu0, longestFlowS: Math.max(0, ...flows.map((f) => f.durationMs)) / 1000, exit });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function clientsBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-clients-'));
  const commands: { name: string; args: string[] }[] = [{ name: 'every client', args: [] }, ...CLIENTS.map((c) => ({ name: c, args: ['--client', c] }))];
  console.log(`\nconformance clients against the embedded mock: ${commands.length} commands, ${RUNS} times each in turn; Node ${process.version}`);
  const measured = new Map<string, Measure[]>(commands.map((c) => [c.name, []]));
  for (let run = 0; run < RUNS; run++)
    for (const [i, c] of commands.entries()) {
      const m = await once(c.args, join(dir, `${run}-${i}.json`));
      if (m.exit !== 0) throw new Error(`conformance clients ${c.args.join(' ')} exited ${m.exit}: against the embedded mock every flow passes`);
      measured.get(c.name)!.push(m);
    }
  const row = (name: string) => {
    const ms = measured.get(name)!;
    const wall = median(ms.map((m) => m.wallS));
    const flows = median(ms.map((m) => m.longestFlowS));
    return `| ${name} | ${wall.toFixed(1)} s | ${median(ms.map((m) => m.cpuS)).toFixed(1)} s | ${flows.toFixed(1)} s | ${(wall - flows).toFixed(1)} s |`;
  };
  console.log(['| command | wall | CPU | longest flow | besides the flows |', '|---|---|---|---|---|', ...commands.map((c) => row(c.name))].join('\n'));
  const all = median(measured.get('every client')!.map((m) => m.wallS));
  console.log(`(medians of ${RUNS}; target: every client under ${TARGET_S} s on two quiet cores: ${all.toFixed(1)} s, ${all < TARGET_S ? 'met' : 'MISSED'})`);
}
