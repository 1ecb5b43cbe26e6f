// The kit against files built to exhaust it (issue 41): each case writes a file, runs the command
// that reads it in a child process, and says how it ended (the exit code, the lines it said), its
// wall time and its peak RSS. A file past a bound is a usage error in one line; a file of many
// mistakes says ten, in time and memory that grow with the file. Target: every case ends with its
// expected exit code, under 600 MB.
//   node dist/bench/hostile-files.js    (or npm run bench; BENCH_ONLY=hostile-files)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runChild } from './child-peak.js';

const BIN = fileURLToPath(new URL('../bin/conformance.js', import.meta.url));
const RSS_TARGET = 600 * 1024 * 1024;
const KILL_AFTER_MS = 180_000;

interface Case {
  name: string;
  /** The command's arguments, given the folder its files are written in. */
  args(dir: string): string[];
  exitCode: number;
}

const write = (dir: string, name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

const modelsWithUnknownField = (n: number) => JSON.stringify({ models: Array.from({ length: n }, (_, i) => ({ id: `m${i}`, colour: 'blue' })) });
const baselineOf = (n: number, entry: (i: number) => string) => `expected:\n${Array.from({ length: n }, (_, i) => entry(i)).join('\n')}\n`;
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

/** A load report of the embedded mock, its rule ids crafted: what `load --merge` reads. */
async function craftedLoadReport(dir: string): Promise<string> {
  const file = join(dir, 'load.json');
  const made = await runChild([BIN, 'load', '--concurrency', '1', '--requests', '4', '--reporter', `json=${file}`], KILL_AFTER_MS);
  if (made.exitCode !== 0) throw new Error(`the load report was not made: ${made.stderr}`);
  const crafted = '"__proto__":{"held":5,"broken":1,"unjudged":0},"constructor":{"held":7,"broken":0,"unjudged":0},"toString":{"held":3,"broken":0,"unjudged":2}';
  // Written compact, so that each step's rules open as `"rules":{`.
  writeFileSync(file, JSON.stringify(JSON.parse(readFileSync(file, 'utf8'))).replaceAll('"rules":{', `"rules":{${crafted},`));
  return file;
}

export const FILE_CASES: Case[] = [
  ...[10_000, 50_000, 100_000].map(
    (n): Case => ({
      name: `mock --config: ${n.toLocaleString('en')} models, each with an unknown field`,
      args: (dir) => ['mock', '--config', write(dir, `models-${n}.json`, modelsWithUnknownField(n)), '--port', '0'],
      exitCode: 2,
    }),
  ),
  {
    name: '--expected-failures: 30,000 entries of one check, each a path',
    args: (dir) => [
      'run',
      '--suite',
      'models',
      '--no-fuzz',
      '--expected-failures',
      write(
        dir,
        'same.yaml',
        baselineOf(30_000, (i) => `  - check: models.list-shape\n    path: p${i}\n    reason: r`),
      ),
    ],
    // Every entry is stale: the check passes.
    exitCode: 1,
  },
  {
    name: '--expected-failures: 30,000 entries naming no check',
    args: (dir) => [
      'run',
      '--suite',
      'models',
      '--no-fuzz',
      '--expected-failures',
      write(
        dir,
        'unknown.yaml',
        baselineOf(30_000, (i) => `  - check: chat.bogus-${i}\n    reason: r`),
      ),
    ],
    exitCode: 2,
  },
  { name: 'mock --config: 100,000 levels of [', args: (dir) => ['mock', '--config', write(dir, 'deep.yaml', `models: ${deep(100_000)}\n`), '--port', '0'], exitCode: 2 },
];

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

export async function hostileFilesBench(): Promise<void> {
  console.log('\nhostile files: the command that reads each, in a child process\n');
  console.log('| case | exit | lines said | peak RSS | wall |\n|---|---|---|---|---|');
  const dir = mkdtempSync(join(tmpdir(), 'conformance-hostile-files-'));
  let misses = 0;
  const report = (name: string, o: Awaited<ReturnType<typeof runChild>>, expected: number) => {
    if (o.exitCode !== expected || o.maxRss > RSS_TARGET) misses++;
    const lines = o.stderr.split('\n').filter(Boolean).length;
    console.log(
      `| ${name} | ${o.signal ? `killed (${o.signal})` : o.exitCode}${o.exitCode === expected ? '' : ` (expected ${expected})`} | ${lines} | ${mb(o.maxRss)} | ${(o.ms / 1000).toFixed(1)} s |`,
    );
  };
  try {
    for (const c of FILE_CASES) report(c.name, await runChild([BIN, ...c.args(dir)], KILL_AFTER_MS), c.exitCode);
    const crafted = await craftedLoadReport(dir);
    // A report valid in every field, and one more field (a report may carry more) 100,000 deep.
    const deepReport = write(dir, 'deep.json', readFileSync(crafted, 'utf8').replace(/}$/, `,"x":${deep(100_000)}}`));
    report('diff: a report holding a 100,000-deep array', await runChild([BIN, 'diff', crafted, deepReport], KILL_AFTER_MS), 2);
    const merged = join(dir, 'merged.json');
    const o = await runChild([BIN, 'load', '--merge', crafted, '--merge', crafted, '--reporter', `json=${merged}`], KILL_AFTER_MS);
    report('load --merge: rule ids __proto__, constructor, toString', o, 0);
    const rules = (JSON.parse(readFileSync(merged, 'utf8')) as { load: { steps: { rules: Record<string, { held: number }> }[] } }).load.steps[1].rules;
    const held = Object.getOwnPropertyDescriptor(rules, '__proto__')?.value?.held;
    if (held !== 10) misses++;
    console.log(`  merged: __proto__ held ${held} (5 + 5), constructor ${Object.getOwnPropertyDescriptor(rules, 'constructor')?.value?.held} (7 + 7)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${misses ? `${misses} case(s) missed` : 'every case met'} the target: its exit code, under ${mb(RSS_TARGET)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  hostileFilesBench().then(
    () => process.exit(0),
    (e) => (console.error(e), process.exit(1)),
  );
