// Every file the kit reads (a mock's configuration, a baseline, a report read back) is anyone's: it
// is read within a size, its nesting and its keys are bounded before a value is made of it, and past
// a bound it is a usage error that names the file and what is wrong, in one line, never a stack
// trace. Finding what is wrong with it grows with the file, not with the square of its mistakes:
// held as a count of the elements built-in array methods touch, which no busy machine changes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../mock/config/load.js';
import { applyBaseline, loadBaseline } from '../../report/baseline.js';
import { FILE_LIMITS, FileError, readText } from '../../schemas/file.js';
import type { CheckResult } from '../../engine/check.js';
import { CHECKS } from '../../suites/index.js';
import { builtInWork, type Counted } from '../support/built-in-work.js';
import { cli } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'file-bounds-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** The elements that array methods touch (the joining of ajv's errors, a spread, a search of a list),
 * each call weighed by its array's length. */
const touched = (self: unknown) => (Array.isArray(self) ? self.length : 0);
const ARRAY_WORK: Counted[] = [
  { on: Array.prototype, method: 'concat', cost: (_self, _args, result: unknown[]) => result.length },
  ...['some', 'find', 'findIndex', 'filter', 'map', 'forEach', 'includes', 'indexOf', 'slice'].map((method) => ({ on: Array.prototype, method, cost: touched })),
  { on: Array.prototype, method: Symbol.iterator, cost: touched },
];
/** The work of `f`, whether it throws or not, and what it threw. */
function workOf(f: () => void): { work: number; error?: string } {
  let error: string | undefined;
  const work = builtInWork(ARRAY_WORK, () => {
    try {
      f();
    } catch (e) {
      error = (e as Error).message;
    }
  });
  return { work, error };
}

/** Twice the input costs at most this many times the work: linear, with room for what is fixed. */
const LINEAR = 2.5;

const modelsWithUnknownField = (n: number) => JSON.stringify({ models: Array.from({ length: n }, (_, i) => ({ id: `m${i}`, colour: 'blue' })) });

describe('a file the kit reads', () => {
  it('is read to its bound and no further: a device that never ends is refused, naming the file and the bound', () => {
    expect(() => readText('/dev/zero', 'configuration', 1024)).toThrow(new FileError('/dev/zero: cannot read the configuration: larger than 1024 bytes, the most conformance reads of one'));
    const big = file('big.yaml', 'x'.repeat(2048));
    expect(() => readText(big, 'baseline', 1024)).toThrow(/big\.yaml: cannot read the baseline: larger than 1024 bytes/);
    expect(readText(big, 'baseline', 2048)).toHaveLength(2048);
    expect(() => readText(join(dir, 'absent.yaml'), 'baseline')).toThrow(/absent\.yaml: cannot read the baseline: ENOENT$/);
  });

  it.each([
    ['a flow sequence', (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`, `nested deeper than ${FILE_LIMITS.depth} levels`],
    ['a flow map', (n: number) => `${'{a: '.repeat(n)}1${'}'.repeat(n)}`, `nested deeper than ${FILE_LIMITS.depth} levels`],
    ['a block sequence', (n: number) => `${'- '.repeat(n)}x\n`, 'indented past 512 columns'],
    ['a block map', (n: number) => `${Array.from({ length: Math.min(n, 600) }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`, 'indented past 512 columns'],
  ])('nested past %s is said at its place, as the tokens come: 200,000 levels cost what 50,000 do', (_kind, nested, said) => {
    const [some, many] = [50_000, 200_000].map((n) => workOf(() => parseConfig(nested(n), 'deep.yaml')));
    expect(some.error).toMatch(new RegExp(`^deep\\.yaml:\\d+:\\d+: ${said}, the most conformance reads$`));
    expect(many.error).toBe(some.error);
    expect(many.work).toBe(some.work);
  });

  it('reads 64 levels, and lines of a block scalar or a quoted text however far they are indented', () => {
    // 64 levels are no configuration, but the schema says so, not the bound.
    expect(workOf(() => parseConfig(`${'['.repeat(FILE_LIMITS.depth)}${']'.repeat(FILE_LIMITS.depth)}`, 'deep.yaml')).error).toMatch(/^deep\.yaml:1: \(top level\): expected object/);
    const far = ' '.repeat(1_000);
    const scenario = (text: string) => `scenarios:\n  - name: a\n    match: { last_user: hi }\n    reply:\n      text: ${text}\n  - name: b\n    match: { last_user: ho }\n    reply: { text: b }\n`;
    for (const text of [`|\n        one\n${far}two\n        three`, `"one\n${far}two"`, `>-\n        one\n${far}two`]) expect(parseConfig(scenario(text), 'far.yaml').scenarios).toHaveLength(2);
  });

  it('refuses a key that is a list or a map, which the parser turns into text in time a power of its depth', () => {
    // 256 levels took the parser seconds, 512 half a minute; 200 are within every other bound.
    const complex = `${'? '.repeat(200)}x\n`;
    const { work, error } = workOf(() => parseConfig(complex, 'keys.yaml'));
    expect(error).toMatch(/^keys\.yaml:1:\d+: a key that is a list or a map, which no file of conformance has/);
    expect(work).toBeLessThan(100_000);
  });

  it('finds a key given twice in one map with a set: a map of many keys costs its size', () => {
    const map = (n: number) => `models:\n  - id: m\n    extra:\n${Array.from({ length: n }, (_, i) => `      k${i}: 1`).join('\n')}\n`;
    const [small, large] = [2_000, 4_000].map((n) => workOf(() => parseConfig(map(n), 'map.yaml')));
    expect(large.work / small.work).toBeLessThan(LINEAR);
    expect(() => parseConfig('keys: []\nmodels: []\nkeys: []\n', 'twice.yaml')).toThrow(/^twice\.yaml:3:1: not valid YAML or JSON: map keys must be unique; "keys" is given twice$/);
    expect(() => parseConfig('{"1": a, 1: b}', 'numbers.yaml')).toThrow(/map keys must be unique; "1" is given twice/);
  });

  it("an alias past the parser's count is a mistake of the file, not a crash", () => {
    const laughs = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    expect(() => parseConfig(laughs, 'laughs.yaml')).toThrow(/^laughs\.yaml: not valid YAML or JSON: .*alias/i);
  });
});

describe('what is wrong with a file', () => {
  it('a configuration of many models, each with an unknown field: the first ten said, in work that grows with the file', () => {
    const [small, large] = [2_000, 4_000].map((n) => workOf(() => parseConfig(modelsWithUnknownField(n), 'models.json')));
    expect(large.work / small.work).toBeLessThan(LINEAR);
    const lines = large.error!.split('\n');
    expect(lines).toHaveLength(FILE_LIMITS.problems);
    // Each model's own mistakes said together, the unknown field first.
    expect(lines[0]).toMatch(/^models\.json:1: models\[0\]\.colour: unknown field \(the fields here are id, name, /);
    expect(lines.slice(0, 10).every((l) => /models\[\d\]/.test(l))).toBe(true);
  });

  it('a field of the right name and a mistake deep in the tenth model is found after nine good ones', () => {
    const models = Array.from(
      { length: 12 },
      (_, i) => `  - { id: m${i}, name: M, owned_by: o, created: 1, context_length: 1, max_output_tokens: 1, pricing: { prompt: "0", completion: "0" }, parameters: {}${i === 9 ? ', colur: x' : ''} }`,
    );
    expect(() => parseConfig(`models:\n${models.join('\n')}\n`, 'tenth.yaml')).toThrow(/^tenth\.yaml:11: models\[9\]\.colur: unknown field/);
  });

  it('a baseline of many entries of one check: read and applied in work that grows with the file', () => {
    const known = new Set(CHECKS.map((c) => c.id));
    const baseline = (n: number) => `expected:\n${Array.from({ length: n }, (_, i) => `  - check: chat.max-tokens\n    path: p${i}\n    reason: r`).join('\n')}\n`;
    const result = { id: 'chat.max-tokens', outcome: 'fail', paths: Array.from({ length: 8 }, (_, i) => ({ label: `m, p${i}`, outcome: i % 2 ? 'pass' : 'fail' })) } as unknown as CheckResult;
    const [small, large] = [2_000, 4_000].map((n) => {
      const path = file(`baseline-${n}.yaml`, baseline(n));
      let stale = 0;
      const w = workOf(() => (stale = applyBaseline([result], loadBaseline(path, known)).stale.length));
      expect(w.error).toBeUndefined();
      expect(stale).toBe(4);
      return w;
    });
    expect(large.work / small.work).toBeLessThan(LINEAR);
  });

  it('a baseline of many unknown checks: the first ten said, each with its did-you-mean, in work that grows with the file', () => {
    const known = new Set(CHECKS.map((c) => c.id));
    const baseline = (n: number) => `expected:\n${Array.from({ length: n }, (_, i) => `  - check: chat.max-token${i}\n    reason: r`).join('\n')}\n`;
    const [small, large] = [2_000, 4_000].map((n) => workOf(() => loadBaseline(file(`unknown-${n}.yaml`, baseline(n)), known)));
    expect(large.work / small.work).toBeLessThan(LINEAR);
    const lines = large.error!.split('\n');
    expect(lines).toHaveLength(FILE_LIMITS.problems);
    expect(lines[0]).toMatch(/unknown-4000\.yaml:2: expected\[0\]\.check: .*"chat\.max-token0" is none: did you mean chat\.max-tokens\?$/);
  });
});

describe('the command line, given a file past a bound', () => {
  const deepReport = file('deep.json', `{"formatVersion":3,"results":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
  const oneLine = (r: { code: number | null; stdout: string; stderr: string }, pattern: RegExp) => {
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
  };

  it('diff and load --merge of a report nested 100,000 deep: exit 2, one line naming the file', async () => {
    oneLine(await cli(['diff', deepReport, deepReport]), /^conformance: .*deep\.json: cannot read a JSON report: JSON nested deeper than 64 levels\n$/);
    oneLine(await cli(['load', '--merge', deepReport]), /^conformance: .*deep\.json: cannot read a JSON report: JSON nested deeper than 64 levels\n$/);
  });

  it('mock --config past its size: exit 2, one line naming the file and the bound, nothing parsed', async () => {
    const big = file('big-config.yaml', `# ${'x'.repeat(FILE_LIMITS.yamlBytes)}\n`);
    oneLine(await cli(['mock', '--config', big, '--port', '0']), /^conformance: .*big-config\.yaml: cannot read the configuration: larger than 2 MiB, the most conformance reads of one\n$/);
  });

  it('mock --config and --expected-failures nested 100,000 deep: exit 2, one line naming the file and the place', async () => {
    const deep = file('deep.yaml', `models: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
    oneLine(await cli(['mock', '--config', deep, '--port', '0']), /^conformance: .*deep\.yaml:1:\d+: nested deeper than 64 levels/);
    oneLine(await cli(['run', '--suite', 'models', '--expected-failures', deep]), /^conformance: .*deep\.yaml:1:\d+: nested deeper than 64 levels/);
  });
});
