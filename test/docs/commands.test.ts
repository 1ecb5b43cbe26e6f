// Every command the pages show works as written: each ```sh block runs as one bash script, in a
// folder of its own, the built kit standing in for `npx conformance`; each `$ ` line of a transcript
// runs and prints what the page shows under it. A command that needs what a test cannot start (the
// reader's own server, an install from the registry, the suite itself, the network) is listed in
// NOT_RUN with why, and that list holds no entry that matches nothing.
//
// The liberties the test takes, so that it binds no fixed port (test/support's rule): a port a page
// names (8080, 18080) is a free one, the same for the whole block; `conformance mock` without
// --port is given its default, 8080, before that; a block that calls a port it starts no server on
// gets a mock the test starts there (the page says, in prose, that one runs); a server started in
// the foreground is stopped once it has printed its banner and answers.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { machineSlowdown, within } from '../support/machine.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const markdownIn = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'reference' ? [] : markdownIn(join(dir, e.name))) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
const PAGES = ['README.md', ...markdownIn('docs')];

/** Commands not run, and why: each needs something a test cannot start. */
const NOT_RUN: { page?: string; command: RegExp; why: string }[] = [
  { command: /--base-url (https:\/\/api\.example\.com|https:\/\/llm\.internal|"\$URL"|\.\.\.)/, why: "the reader's own server, which only the reader can start" },
  { page: 'docs/load.md', command: /--merge part-\*\.json/, why: "the reports of the sweep above, made against the reader's own server" },
  { page: 'README.md', command: /^npm install && npm run build && npx conformance run/, why: "the kit's own install and build, which CI runs (.ci/run)" },
  { page: 'README.md', command: /^npm test$/, why: "the kit's own test suite, this test among it" },
  {
    page: 'README.md',
    command: /^npm install --save-dev (git\+https:\/\/github\.com\/OWNER\/REPO\.git|\.\/chat-api-conformance-[\d.]+\.tgz)$/,
    why: 'an install of the kit into another project, from its repository or a packed tarball: test/package.test.ts runs both',
  },
  { page: 'docs/performance.md', command: /^(BENCH_ONLY=instructions )?npm run bench(:gate)?$/, why: "the kit's own benchmarks, minutes of valgrind; CI runs the gate (.ci/run)" },
  { page: 'docs/mock.md', command: /--host 0\.0\.0\.0/, why: 'a mock listening on the network: a test listens on 127.0.0.1 only' },
];

interface Command {
  text: string;
  line: number;
}

/** A command without the comment after it (a `#` after white space, outside quotes). */
function uncommented(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i).trimEnd();
  }
  return line;
}

/** A block's commands: lines joined where they end in a backslash, comments and blank lines left out. */
function commandsOf(body: string, firstLine: number): Command[] {
  const out: Command[] = [];
  let pending: Command | undefined;
  body.split('\n').forEach((raw, i) => {
    const line = uncommented(raw).trimEnd();
    if (!pending && (!line.trim() || line.trim().startsWith('#'))) return;
    const text = line.endsWith('\\') ? line.slice(0, -1) : line;
    pending = pending ? { ...pending, text: `${pending.text} ${text.trim()}` } : { text: text.trim(), line: firstLine + i };
    if (!line.endsWith('\\')) {
      out.push(pending);
      pending = undefined;
    }
  });
  return out;
}

interface Block {
  page: string;
  line: number;
  commands: Command[];
}

interface Transcript {
  page: string;
  line: number;
  steps: { command: string; shown: string[] }[];
}

/** The shell blocks of a page, and its transcripts (a block of `$ ` lines and what each printed). */
function blocksOf(page: string): { blocks: Block[]; transcripts: Transcript[] } {
  const text = readFileSync(join(root, page), 'utf8');
  const blocks: Block[] = [];
  const transcripts: Transcript[] = [];
  for (const m of text.matchAll(/^(`{3,})(\w*)[^\n]*\n([\s\S]*?)^\1\s*$/gm)) {
    const line = text.slice(0, m.index).split('\n').length;
    if (m[2] === 'sh') blocks.push({ page, line, commands: commandsOf(m[3], line + 1) });
    else if (/^\$ /m.test(m[3])) {
      const steps: Transcript['steps'] = [];
      for (const l of m[3].trimEnd().split('\n')) {
        if (l.startsWith('$ ')) steps.push({ command: l.slice(2), shown: [] });
        else steps.at(-1)?.shown.push(l);
      }
      transcripts.push({ page, line, steps });
    }
  }
  return { blocks, transcripts };
}

const ALL = PAGES.map(blocksOf);
const BLOCKS = ALL.flatMap((p) => p.blocks);
const TRANSCRIPTS = ALL.flatMap((p) => p.transcripts);
const notRun = (page: string, command: string) => NOT_RUN.find((n) => (!n.page || n.page === page) && n.command.test(command));

const isMock = (c: string) => /^npx conformance mock\b/.test(c) && !/--list-faults/.test(c);
/** A command whose exit code is a verdict: 1 is the server failing, not the command. */
const judges = (c: string) => /^npx conformance (run|fuzz|load|diff)\b/.test(c);

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** A folder to run a block in: the examples at hand, and `npx conformance` meaning the built kit. */
function folder(): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docs-commands-'));
  symlinkSync(join(root, 'examples'), join(dir, 'examples'));
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh\n[ "$1" = conformance ] || { echo "the docs test runs npx conformance only, not: npx $*" >&2; exit 127; }\nshift\nexec "${process.execPath}" "${join(root, 'dist/bin/conformance.js')}" "$@"\n`,
  );
  chmodSync(join(bin, 'npx'), 0o755);
  return { dir, path: `${bin}:${process.env.PATH}` };
}

/** Runs a script in `dir`; everything it started is stopped when it ends or the time is up. */
function bash(script: string, dir: string, path: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONFORMANCE_') && !k.startsWith('VITEST')));
    const child = spawn('bash', ['-c', script], { cwd: dir, env: { ...env, PATH: path, NO_COLOR: '1', npm_config_offline: 'true', npm_config_update_notifier: 'false' }, detached: true });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b));
    child.stderr.on('data', (b: Buffer) => (output += b));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group has ended
      }
      resolve({ code, output });
    });
  });
}

/** A folder where `npx conformance` is npm's own npx, running the kit installed in node_modules as a
 * user's project has it (offline: it is found there, never looked for in the registry). */
function npmProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'docs-npx-'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "docs-npx", "version": "1.0.0", "private": true }\n');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules', 'chat-api-conformance'));
  symlinkSync('../chat-api-conformance/dist/bin/conformance.js', join(dir, 'node_modules', '.bin', 'conformance'));
  symlinkSync(join(root, 'examples'), join(dir, 'examples'));
  return dir;
}

/** The blocks that start a mock in the background and stop it with `kill $!`. */
const STOPPED = BLOCKS.filter((b) => b.commands.some((c) => isMock(c.text) && c.text.endsWith('&')) && b.commands.some((c) => c.text === 'kill $!'));

const slowdown = machineSlowdown();
const servers: MockServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A port the page names, mapped to a free one everywhere in the block. */
async function withPorts(commands: string[]): Promise<{ commands: string[]; started: Map<string, number> }> {
  const given = commands.map((c) => (isMock(c) && !/--port\b/.test(c) ? c.replace(/^(npx conformance mock)\b/, '$1 --port 8080') : c));
  const named = new Set(given.flatMap((c) => [...c.matchAll(/(?:127\.0\.0\.1:|--port )(\d{4,5})\b/g)].map((m) => m[1])));
  const map = new Map<string, number>();
  for (const p of named) map.set(p, await freePort());
  const mapped = given.map((c) => c.replace(/(127\.0\.0\.1:|--port )(\d{4,5})\b/g, (_, before: string, p: string) => `${before}${map.get(p)}`));
  const started = new Map<string, number>();
  for (const c of mapped) if (isMock(c)) started.set(c, Number(/--port (\d+)/.exec(c)![1]));
  // A port called and never served by the block: the mock the page says runs there.
  const served = new Set(started.values());
  for (const port of map.values())
    if (!served.has(port)) {
      const server = await startMockServer({ port });
      servers.push(server);
    }
  return { commands: mapped, started };
}

const BANNER = /^(mock listening on|recording from|replaying) /m;

/** The block as one script: each command's output and exit code in files of its own (in a group,
 * so that its own redirections hold), a server waited for until it has printed its banner and
 * answers, one in the foreground stopped then. */
function scriptOf(commands: string[], started: Map<string, number>): string {
  const wait = Math.round(within(60_000) / 100);
  const lines = [
    'set +e',
    "trap 'kill $(jobs -p) 2>/dev/null' EXIT",
    `up() { for _ in $(seq 1 ${wait}); do grep -qE '${BANNER.source}' "$2" && (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.1; done; return 1; }`,
  ];
  commands.forEach((c, i) => {
    const port = started.get(c);
    if (port === undefined) lines.push(`{ ${c}\n} > .out.${i} 2>&1`, `echo $? > .code.${i}`);
    // A server's command is simple (no redirection of its own): not grouped, so that $! is its process.
    else if (c.endsWith('&')) lines.push(`${c.slice(0, -1)} > .out.${i} 2>&1 &`, `up ${port} .out.${i}; echo $? > .code.${i}`);
    else lines.push(`${c} > .out.${i} 2>&1 &`, `pid=$!; up ${port} .out.${i}; echo $? > .code.${i}; kill -TERM $pid; wait $pid`);
  });
  return lines.join('\n');
}

describe('every command the pages show', () => {
  it('runs, or is listed as needing what a test cannot start; nothing listed matches no command', () => {
    const all = BLOCKS.flatMap((b) => b.commands.map((c) => ({ page: b.page, text: c.text })));
    const stale = NOT_RUN.filter((n) => !all.some((c) => (!n.page || n.page === c.page) && n.command.test(c.text)));
    expect(stale.map((n) => `${n.page ?? 'any page'}: ${n.command}`)).toEqual([]);
    expect(all.filter((c) => !notRun(c.page, c.text)).length).toBeGreaterThan(20);
    // A page that starts a mock in the background shows how to stop it.
    expect(STOPPED.map((b) => b.page).sort()).toEqual(['docs/mock.md', 'docs/verdicts.md']);
  });

  const runnable = BLOCKS.filter((b) => b.commands.some((c) => !notRun(b.page, c.text)));
  // Each block in a folder of its own, on ports of its own: most of their time is waiting (a paced
  // load sweep, a server coming up), so they run together.
  it.concurrent.each(runnable.map((b) => [`${b.page}:${b.line}`, b] as const))(
    '%s',
    async (_name, block) => {
      const chosen = block.commands.filter((c) => !notRun(block.page, c.text));
      const { commands, started } = await withPorts(chosen.map((c) => c.text));
      const { dir, path } = folder();
      const run = await bash(scriptOf(commands, started), dir, path, 150_000 * slowdown);
      const failures: string[] = [];
      commands.forEach((c, i) => {
        const where = `${block.page}:${chosen[i].line}: ${chosen[i].text}`;
        let code: number | undefined;
        let out = '';
        try {
          code = Number(readFileSync(join(dir, `.code.${i}`), 'utf8'));
          out = readFileSync(join(dir, `.out.${i}`), 'utf8');
        } catch {
          return void failures.push(`${where}: never ran (${run.output.slice(-500)})`);
        }
        if (started.has(c)) {
          if (code !== 0 || !BANNER.test(out)) failures.push(`${where}: no server came up:\n${out.slice(-1500)}`);
        } else if (!(code === 0 || (code === 1 && judges(c)))) failures.push(`${where}: exit ${code}:\n${out.slice(-1500)}`);
        // curl prints an error answer and exits 0: the mock's error is the command not working, but
        // where the command asks for a fault.
        else if (/^curl /.test(c) && !/x-mock-fault/.test(c) && /"error":\s*\{/.test(out)) failures.push(`${where}: answered an error:\n${out.slice(0, 1500)}`);
      });
      expect(failures).toEqual([]);
    },
    200_000 * slowdown,
  );

  // The shim above execs the kit, so a signal reaches the mock itself. npm's own npx runs it in a
  // shell and passes a signal to that shell only: `kill $!` names npm, which exits, and the mock would
  // stay on its port, orphaned (issue 46). Here a page's background mock is started and stopped
  // through npm's npx, with the page's own lines, from a project that has the kit installed.
  it.concurrent.each(STOPPED.map((b) => [`${b.page}:${b.line}`, b] as const))(
    '%s: the background mock, started through npm and stopped with kill $!, frees its port',
    async (_name, block) => {
      const mockAt = block.commands.findIndex((c) => isMock(c.text) && c.text.endsWith('&'));
      // What the mock needs made first (a certificate), the mock, and the kill; the page's other
      // commands run above, with the shim.
      const lines = block.commands.filter((c, i) => i === mockAt || (i < mockAt && !/^npx /.test(c.text)) || c.text === 'kill $!').map((c) => c.text);
      const { commands, started } = await withPorts(lines);
      const mock = commands.find((c) => started.has(c))!;
      const port = started.get(mock)!;
      // A poll only a hang outlasts, on this machine as it is now: it ends as soon as the port answers.
      const tries = Math.round(within(60_000) / 100);
      const script = [
        `up() { for _ in $(seq 1 ${tries}); do grep -qE '${BANNER.source}' "$2" && (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.1; done; return 1; }`,
        `free() { for _ in $(seq 1 ${tries}); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null || return 0; sleep 0.1; done; return 1; }`,
        ...commands.map((c) =>
          c === mock
            ? `${c.slice(0, -1)} > .out 2>&1 &\nup ${port} .out && echo "mock up" || { echo "no mock:"; cat .out; }`
            : c === 'kill $!'
              ? `kill $!\nfree ${port} && echo "port free" || echo "port still held"`
              : `{ ${c}\n} > /dev/null 2>&1`,
        ),
        // The next start on that port, as the user makes it.
        `${mock.slice(0, -1)} > .again 2>&1 &\nup ${port} .again && echo "mock up again" || { echo "no mock again:"; cat .again; }`,
        `kill $!\nfree ${port} && echo "port free again" || echo "port still held again"`,
      ].join('\n');
      const run = await bash(script, npmProject(), process.env.PATH!, within(300_000));
      expect(run.output).toContain('mock up\nport free\nmock up again\nport free again\n');
    },
    150_000 * slowdown,
  );

  it.concurrent.each(TRANSCRIPTS.map((t) => [`${t.page}:${t.line}`, t] as const))(
    '%s prints what the page shows',
    async (_name, t) => {
      const { dir, path } = folder();
      for (const step of t.steps) {
        const { output } = await bash(step.command, dir, path, 30_000 * slowdown);
        expect(output.trimEnd().split('\n').filter(Boolean), step.command).toEqual(step.shown);
      }
    },
    60_000 * slowdown,
  );
});
