// The third-party servers of the compatibility table: their data (compat/servers.json), their
// install from the npm registry into a scratch folder, and their start and stop on 127.0.0.1. Every
// wait is bounded, and a server is stopped with its whole process group, so nothing is left running.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Server {
  id: string;
  name: string;
  package: string;
  version: string;
  kind: string;
  /** The file the server starts from, inside the scratch folder's node_modules. */
  main: string;
  args: string[];
  env: Record<string, string>;
  /** Preload compat/loopback.cjs: the server has no option for its address. */
  loopback?: boolean;
  /** Routes to an upstream: the kit's own mock, started on loopback beside it. */
  upstream?: boolean;
  /** Options the kit is given for this server, beside the base URL and the keys. */
  kitOptions: string[];
  setup: string;
  /** Installed and held by test/compat.test.ts, within CI's time. */
  ci: boolean;
}

export interface Dropped {
  package: string;
  version: string;
  why: string;
}

/** The repository: the first folder up from this file that holds compat/servers.json (this file runs
 * built, from dist/scripts/compat, and as source under vitest). */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'compat', 'servers.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
export const root = findRoot();
export const compatDir = join(root, 'compat');

export function loadServers(): { servers: Server[]; dropped: Dropped[] } {
  return JSON.parse(readFileSync(join(compatDir, 'servers.json'), 'utf8'));
}

/** Longest an install may take: a cold npm cache on a slow registry day. */
const INSTALL_LIMIT_MS = 10 * 60_000;
/** Longest a server may take from its start to its first HTTP answer. */
const READY_LIMIT_MS = 60_000;
/** Longest a stopped server may take to exit before it is killed. */
const STOP_LIMIT_MS = 10_000;

/** The scratch folder a server's package is installed into (kept between runs: a second run reuses it). */
export function scratchOf(server: Server): string {
  return join(tmpdir(), 'chat-api-compat', `${server.id}@${server.version}`);
}

function run(command: string, args: string[], opts: { cwd?: string; limitMs: number; log: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = openSync(opts.log, 'a');
    const child = spawn(command, args, { cwd: opts.cwd, stdio: ['ignore', out, out], detached: true });
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not end within ${opts.limitMs / 1000} s (see ${opts.log})`));
    }, opts.limitMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

/** Installs the pinned version once; a folder that holds it already is used as it is. */
export async function install(server: Server, log: string): Promise<string> {
  const dir = scratchOf(server);
  const manifest = join(dir, 'node_modules', server.package, 'package.json');
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === server.version) return dir;
  mkdirSync(dir, { recursive: true });
  const code = await run('npm', ['install', '--prefix', dir, `${server.package}@${server.version}`, '--no-audit', '--no-fund', '--prefer-offline'], {
    limitMs: INSTALL_LIMIT_MS,
    log,
  });
  if (code !== 0 || !existsSync(manifest)) throw new Error(`npm install ${server.package}@${server.version} failed (exit ${code}; see ${log})`);
  return dir;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

export interface Running {
  url: string;
  stop(): Promise<void>;
}

/** Starts a command in its own process group and waits, bounded, for its first HTTP answer. */
export async function startProcess(args: string[], opts: { cwd: string; env: Record<string, string>; port: number; log: string; readyPath: string }): Promise<Running> {
  const out = openSync(opts.log, 'a');
  const child = spawn(process.execPath, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', out, out], detached: true });
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) => child.on('exit', (code) => ((exited = code), resolve())));
  const stop = async () => {
    if (exited !== undefined) return;
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_LIMIT_MS);
    await exit;
    clearTimeout(timer);
    killGroup(child, 'SIGKILL'); // a child the server left in its group
  };
  const url = `http://127.0.0.1:${opts.port}`;
  const until = Date.now() + READY_LIMIT_MS;
  while (Date.now() < until) {
    if (exited !== undefined) throw new Error(`the server exited (code ${exited}) before it answered; see ${opts.log}`);
    try {
      await fetch(url + opts.readyPath, { signal: AbortSignal.timeout(2_000) });
      return { url, stop };
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  await stop();
  throw new Error(`the server gave no HTTP answer on ${url} within ${READY_LIMIT_MS / 1000} s; see ${opts.log}`);
}

const fill = (text: string, values: Record<string, string>): string => text.replace(/\{(\w+)\}/g, (whole, name) => values[name] ?? whole);

/** Starts a server from its scratch folder, with its placeholders filled. */
export function startServer(server: Server, dir: string, values: Record<string, string>, log: string): Promise<Running> {
  const all = { ...values, scratch: dir, openapi: join(compatDir, 'openapi', 'chat-api.yaml'), loopback: join(compatDir, 'loopback.cjs') };
  mkdirSync(join(dir, 'home'), { recursive: true });
  const preload = server.loopback ? ['--require', all.loopback] : [];
  const env = Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, fill(v, all)]));
  return startProcess([...preload, join(dir, 'node_modules', server.main), ...server.args.map((a) => fill(a, all))], {
    cwd: dir,
    env,
    port: Number(values.port),
    log,
    readyPath: '/v1/models',
  });
}

export function kitOptionsOf(server: Server, values: Record<string, string>): string[] {
  return server.kitOptions.map((a) => fill(a, values));
}
