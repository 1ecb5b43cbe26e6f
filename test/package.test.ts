// What npm publishes, and that a user can install it while it is not on the registry. `npm pack`
// holds what a user needs (the command, the library and its types, the mock, the vitest entry, the
// published schemas and the document they follow, the README and the docs it links to) and nothing
// else (no tests, no benchmarks, no sources, no source maps). That tarball, and the repository by git
// URL (a fresh clone of this one: what is committed, not the work tree), each install into an empty
// project with no script for the user to approve, and `npx conformance run` passes there against the
// embedded mock; the pages name that tarball as npm does. The two installs run side by side (most of
// their time is npm waiting on files), from the npm cache where it has the packages.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { within } from './support/machine.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; files: string[]; scripts: Record<string, string> };
const scratch = mkdtempSync(join(tmpdir(), 'conformance-install-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The user's environment: not the one npm runs this test in (its lifecycle and package variables),
 * nor the kit's own switches. */
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_lifecycle_|npm_package_|CONFORMANCE_|VITEST)/.test(k))),
  NO_COLOR: '1',
};

function sh(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b));
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** One `npm pack` for the whole file. `--ignore-scripts`: its `prepack` would build again what the
 * tests' own build (`pretest`) has just made. */
let packing: Promise<{ tarball: string; paths: string[] }> | undefined;
const packed = () =>
  (packing ??= sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], root).then(({ code, stdout, stderr }) => {
    if (code !== 0) throw new Error(`npm pack failed (exit ${code}):\n${stderr}`);
    const [{ filename, files }] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    return { tarball: join(scratch, filename), paths: files.map((f) => f.path) };
  }));

it('installs with no script for the user to approve: prepack builds what is packed; from git, the clone npm prepares is built', () => {
  // npm lists a package's preinstall, install, postinstall and (from a tarball or git) prepare as
  // install scripts "not covered by allowScripts", asking the user to approve them.
  expect(Object.keys(pkg.scripts).filter((s) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(s))).toEqual([]);
  expect(pkg.scripts.prepack).toBe('npm run build');
  // A git dependency is packed from a clone npm prepares: it runs `npm install` there (the dev
  // dependencies too, and so the clone's own preprepare), then packs it, running no `prepack`. The
  // preprepare builds only there (pacote marks that install with _PACOTE_NO_PREPARE_), so that an
  // `npm install` or `npm ci` in a clone of the kit builds nothing twice: the tests build for themselves,
  // as CI (.ci/run) does after a clean install.
  expect(pkg.scripts.preprepare).toMatch(/^node -e "process\.env\._PACOTE_NO_PREPARE_ === undefined \|\| .*'npm run build'/);
  expect(pkg.scripts.pretest).toMatch(/^npm run build\b/);
});

it.concurrent('npm pack holds what a user needs and nothing else', async () => {
  const { paths } = await packed();
  for (const needed of [
    'dist/bin/conformance.js',
    'dist/bin/cli.cjs',
    'dist/suites/index.js',
    'dist/suites/index.d.ts',
    'dist/mock/index.js',
    'dist/schemas/validators.cjs',
    'dist/suites/vitest.js',
    'schemas/report.schema.json',
    'schemas/baseline.schema.json',
    'schemas/control.schema.json',
    'dist/mock/dashboard/page/index.html',
    'dist/mock/dashboard/page/app.js',
    'dist/mock/dashboard/page/dashboard.css',
    'dist/mock/dashboard/page/icon.svg',
    'schemas/spec/chat-api.md',
    'README.md',
    'docs/README.md',
    'docs/reference/checks.md',
    'docs/dashboard.png',
    'package.json',
  ])
    expect(paths, needed).toContain(needed);
  const stray = paths.filter((p) => /^(test|bench|dist\/bench|dist\/test)\//.test(p) || /\.map$/.test(p) || (/\.ts$/.test(p) && !/\.d\.ts$/.test(p)));
  expect(stray).toEqual([]);
});

it.concurrent('the pages name the tarball as npm pack names it', async () => {
  const { tarball } = await packed();
  const pages = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
  const named = ['README.md', ...pages('docs')].flatMap((page) => [...readFileSync(join(root, page), 'utf8').matchAll(/\bchat-api-conformance-[^\s`/]*\.tgz\b/g)].map((m) => `${page}: ${m[0]}`));
  expect(named.length).toBeGreaterThan(0);
  expect(named.filter((n) => !n.endsWith(`: ${basename(tarball)}`))).toEqual([]);
});

// The installs: in one group of concurrent tests with the checks above, so that all start at once.
const FAST = ['--prefer-offline', '--no-audit', '--no-fund'];
/** What the package's `files` put at its top, as an install lays it out. */
const TOP = [...new Set([...pkg.files.filter((f) => !f.startsWith('!')).map((f) => f.split('/')[0]), 'package.json'])].sort();

function project(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  return dir;
}

/** `npm install --save-dev SPEC` in an empty project, as the README shows, then the run. */
async function installsAndPasses(user: string, spec: string): Promise<void> {
  const install = await sh('npm', ['install', '--save-dev', ...FAST, spec], user);
  expect(install.code, install.stderr).toBe(0);
  expect(install.stderr.split('\n').filter((l) => /^npm warn install-scripts/.test(l))).toEqual([]);
  const installed = join(user, 'node_modules', pkg.name);
  expect(readdirSync(installed).sort()).toEqual(TOP);
  expect(existsSync(join(installed, 'dist/bin/conformance.js')), 'built: dist/bin/conformance.js').toBe(true);
  // --no-install: the kit's own command, never the unrelated `conformance` of the registry.
  const run = await sh('npx', ['--no-install', 'conformance', 'run'], user);
  expect(run.code, run.stdout.slice(-2000) + run.stderr).toBe(0);
  expect(run.stdout).toMatch(/PASSED \(exit code 0\)/);
}

it.concurrent(
  'installs from the packed tarball into an empty project and runs there: nothing is built at install',
  async () => {
    const { tarball } = await packed();
    await installsAndPasses(project('from-tarball'), tarball);
  },
  within(120_000),
);

it.concurrent(
  'installs from a git URL into an empty project and runs there: npm builds it in the clone it prepares',
  async () => {
    const clone = join(scratch, 'chat-api-conformance');
    const cloned = await sh('git', ['clone', '--quiet', root, clone], scratch);
    expect(cloned.code, cloned.stderr).toBe(0);
    await installsAndPasses(project('from-git'), `git+${pathToFileURL(clone).href}`);
  },
  within(300_000),
);
