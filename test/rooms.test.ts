// The rooms of the tree (engine/, report/, suites/, mock/) and the imports each may make, held by
// dependency-cruiser's rules in .dependency-cruiser.cjs: the real tree passes them, and a tree with
// each kind of forbidden import fails with the rule that names it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { within } from './support/machine.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
const config = join(root, '.dependency-cruiser.cjs');

const cruise = (cwd: string, dirs: string[]) =>
  new Promise<{ code: number; out: string }>((resolve) =>
    execFile(depcruise, ['--config', config, '--output-type', 'err', ...dirs], { cwd, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    ),
  );

const trees: string[] = [];
/** A tree of its own: files by path, each importing the paths listed. */
function tree(files: Record<string, readonly string[]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rooms-'));
  trees.push(dir);
  for (const [file, imports] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    const lines = imports.map((to, i) => `import { x${i} } from '${to}';`);
    writeFileSync(join(dir, file), `${lines.join('\n')}\nexport const x = ${imports.map((_, i) => `x${i}`).join(' + ') || '1'};\n`);
  }
  return dir;
}
afterAll(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

describe('the rooms of the tree', () => {
  it(
    "the repository's own imports keep every rule, and form no circle",
    async () => {
      const r = await cruise(root, ['engine', 'report', 'suites', 'mock', 'bin', 'bench', 'schemas']);
      expect(r.out).toContain('no dependency violations found');
      expect(r.code).toBe(0);
    },
    within(60_000),
  );

  // Each forbidden import in one tree (a spawn of dependency-cruiser each cost a second of CPU): every
  // rule is said for its own import, by its own name.
  const FORBIDDEN = [
    ['engine-knows-no-rule', 'engine/runner.ts', 'suites/chat.ts'],
    ['engine-knows-no-rule', 'engine/http.ts', 'mock/http.ts'],
    ['mock-never-imports-suites', 'mock/record/server.ts', 'suites/answer.ts'],
    ['report-reads-results-only', 'report/pretty.ts', 'suites/api.ts'],
    ['report-takes-engine-types-only', 'report/json.ts', 'engine/http.ts'],
    ['suites-leave-output-to-report', 'suites/chat.ts', 'report/pretty.ts'],
    ['only-the-session-starts-the-mock', 'suites/auth.ts', 'mock/http.ts'],
    ['schemas-import-nothing-of-the-kit', 'schemas/index.ts', 'suites/api.ts'],
    ['nothing-imports-the-cli', 'mock/index.ts', 'bin/conformance.ts'],
    ['no-circular', 'suites/api.ts', 'suites/paths.ts'],
  ] as const;
  /** The import back that closes the circle of the last. */
  const CLOSING = ['suites/paths.ts', 'suites/api.ts'] as const;
  /** `to` as `from` imports it: up to the root, then down. */
  const relative = (from: string, to: string) => `${'../'.repeat(from.split('/').length - 1)}${to.replace(/\.ts$/, '.js')}`;
  let forbidden: Promise<{ code: number; out: string }> | undefined;
  const cruiseForbidden = () => {
    if (!forbidden) {
      const files: Record<string, string[]> = {};
      for (const [from, to] of [...FORBIDDEN.map(([, f, t]) => [f, t] as const), CLOSING]) {
        (files[from] ??= []).push(relative(from, to));
        files[to] ??= [];
      }
      forbidden = cruise(tree(files), [...new Set(Object.keys(files).map((f) => f.split('/')[0]))]);
    }
    return forbidden;
  };

  it.each(FORBIDDEN)(
    'catches %s (%s imports %s)',
    async (rule, from, to) => {
      const r = await cruiseForbidden();
      // A circle is said over lines, one module a line.
      expect(r.out.replace(/→\s+/g, '→ ')).toContain(`error ${rule}: ${from} → ${to}`);
      expect(r.code).not.toBe(0);
    },
    within(60_000),
  );

  it(
    'lets each room import what it may',
    async () => {
      const dir = tree({
        'engine/runner.ts': ['./check.js'],
        'engine/check.ts': [],
        'report/pretty.ts': ['../engine/check.js', '../schemas/file.js'],
        'schemas/file.ts': [],
        'suites/session.ts': ['../mock/http.js', '../report/report.js', '../engine/runner.js'],
        'report/report.ts': [],
        'mock/http.ts': ['../engine/check.js'],
        'bin/conformance.ts': ['../suites/session.js', '../mock/http.js', '../report/pretty.js'],
      });
      const r = await cruise(dir, ['engine', 'report', 'schemas', 'suites', 'mock', 'bin']);
      expect(r.out).toContain('no dependency violations found');
      expect(r.code).toBe(0);
    },
    within(60_000),
  );
});
