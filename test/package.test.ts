// What npm publishes: what a user needs (the command, the library and its types, the mock, the
// vitest entry, the published schemas and the document they follow, the README and the docs it
// links to) and nothing else (no tests, no benchmarks, no sources, no source maps). bench/packed.ts
// (npm run check:package) installs the tarball in an empty folder (failing on an install-scripts
// warning) and runs it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('npm pack holds what a user needs and nothing else', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const [{ files }] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as { files: { path: string }[] }[];
  const paths = files.map((f) => f.path);
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

it('installs with no script for the user to approve: prepack builds what is packed, nothing runs at install', () => {
  // npm lists a package's preinstall, install, postinstall and (from a tarball or git) prepare as
  // install scripts "not covered by allowScripts", asking the user to approve them.
  const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  expect(Object.keys(scripts).filter((s) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(s))).toEqual([]);
  expect(scripts.prepack).toBe('npm run build');
  // The tests build it themselves, as CI (.ci/run) does after a clean install.
  expect(scripts.pretest).toMatch(/^npm run build\b/);
});
