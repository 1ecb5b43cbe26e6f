// The pipeline examples and the GitHub Action do what they say: the shared step runs against the
// mock and writes the reports the workflows publish; the Action's inputs map one to one onto the
// flags of `conformance run`, the keys passed through the environment, never the arguments.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { commandFor, SWITCH_INPUTS, VALUE_INPUTS } from '../bin/action.js';
import { validator } from '../schemas/index.js';
import { startMockServer } from '../mock/http.js';
import { KEY, SECOND_KEY } from './support/run.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const sh = (cmd: string, args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(cmd, args, { cwd: root, env: { ...process.env, NO_COLOR: '1', ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

describe('the pipeline examples', () => {
  it('GitHub Actions and GitLab CI run the one shared step and keep its reports', () => {
    const gh = parse(readFileSync(join(root, 'examples/ci/github-actions.yml'), 'utf8'));
    const steps = gh.jobs.conformance.steps as { run?: string; uses?: string; with?: Record<string, string> }[];
    expect(steps.map((s) => s.run)).toContain('bash examples/ci/conformance.sh');
    expect(steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.path).toBe('reports/');
    expect(steps.find((s) => s.uses?.includes('junit'))?.with?.report_paths).toBe('reports/junit.xml');
    expect(steps.some((s) => s.run?.includes('reports/summary.md') && s.run.includes('GITHUB_STEP_SUMMARY'))).toBe(true);
    const gl = parse(readFileSync(join(root, 'examples/ci/gitlab-ci.yml'), 'utf8'));
    expect(gl.conformance.script).toContain('bash examples/ci/conformance.sh');
    expect(gl.conformance.artifacts.reports.junit).toBe('reports/junit.xml');
  });

  it('the shared step runs against the mock with the baseline and writes every report', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'ci-reports-'));
    // Below Linux's ephemeral range (32768 and up), where the suite's own client connections take
    // their ports: a port picked there could already be in use.
    const r = await sh('bash', ['examples/ci/conformance.sh'], { CONFORMANCE_REPORTS: reports, CONFORMANCE_MOCK_PORT: String(20000 + Math.floor(Math.random() * 12000)) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASSED \(exit code 0\)/);
    for (const f of ['junit.xml', 'summary.md', 'report.html', 'report.json']) expect(existsSync(join(reports, f)), f).toBe(true);
    const report = JSON.parse(readFileSync(join(reports, 'report.json'), 'utf8'));
    expect(validator('report')(report).errors).toEqual([]);
    expect(report.baseline).toMatchObject({ file: 'examples/ci/expected-failures.yaml', expected: 0, stale: [] });
  });
});

describe("the README's CI step", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const gate = readme.slice(readme.indexOf('## CI pipelines'));
  const steps = parse(/^```yaml\n([\s\S]*?)^```/m.exec(gate)![1]) as { uses?: string; run?: string; env?: Record<string, string> }[];

  it('can be copied as it is: no placeholder, the kit a dev dependency the project installs, its own command (never the unrelated `conformance`), the key from a secret', () => {
    expect(JSON.stringify(steps)).not.toMatch(/<[^>]+>|OWNER|REPO/);
    expect(steps[0].uses).toMatch(/^actions\/setup-node@v\d+$/);
    // Not on the registry yet: not fetched by name, but installed with the project (README: in another project).
    expect(steps[1].run).toBe('npm ci');
    expect(steps[2].run).toMatch(/^npx --no-install conformance run /);
    expect(steps[2].env).toEqual({ CONFORMANCE_API_KEY: `\${{ secrets.CONFORMANCE_API_KEY }}` });
  });

  it('runs: its command against a server, the key from the environment, the JUnit report written', async () => {
    const server = await startMockServer();
    try {
      const dir = mkdtempSync(join(tmpdir(), 'readme-ci-'));
      // The package's own command in place of the project's installed copy, the mock in place of the server.
      const args = steps[2]
        .run!.replace(/^npx --no-install conformance /, '')
        .replace('http://127.0.0.1:8000', server.url)
        .replace('reports/', `${dir}/`)
        .split(' ');
      const r = await sh(process.execPath, ['dist/bin/conformance.js', ...args, '--suite', 'models'], { CONFORMANCE_API_KEY: KEY });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/PASSED \(exit code 0\)/);
      expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('the GitHub Action', () => {
  const action = parse(readFileSync(join(root, 'action.yml'), 'utf8'));
  const inputs = Object.keys(action.inputs);

  it('maps each input one to one onto a flag of conformance run, through its own variable', async () => {
    const help = (await sh(process.execPath, ['dist/bin/conformance.js', 'run', '--help'])).stdout;
    const flags = new Set([...help.matchAll(/^\s+--([a-z-]+)/gm)].map((m) => m[1]));
    const own = ['reports-dir'];
    expect(inputs.filter((i) => !own.includes(i)).sort()).toEqual([...VALUE_INPUTS, ...SWITCH_INPUTS].sort());
    for (const input of [...VALUE_INPUTS, ...SWITCH_INPUTS]) expect(flags, input).toContain(input);
    const env = action.runs.steps.find((s: { env?: unknown }) => s.env).env as Record<string, string>;
    for (const input of inputs) expect(env[`INPUT_${input.toUpperCase().replace(/-/g, '_')}`], input).toBe(`\${{ inputs.${input} }}`);
  });

  it('runs as a workflow step would, against the mock: annotations, job summary and reports', async () => {
    const server = await startMockServer();
    try {
      const dir = mkdtempSync(join(tmpdir(), 'action-'));
      const summary = join(dir, 'summary.md');
      const r = await sh(process.execPath, ['dist/bin/action.js'], {
        INPUT_BASE_URL: server.url,
        INPUT_API_KEY: KEY,
        INPUT_SECOND_API_KEY: SECOND_KEY,
        INPUT_SUITE: 'models\nauth',
        INPUT_STRICT: 'true',
        INPUT_REPORTS_DIR: join(dir, 'reports'),
        GITHUB_STEP_SUMMARY: summary,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^::notice title=chat-api-conformance%3A passed::/m);
      expect(readFileSync(summary, 'utf8')).toMatch(/^## ✅ chat-api-conformance: PASSED/);
      for (const f of ['junit.xml', 'report.html', 'report.json']) expect(existsSync(join(dir, 'reports', f)), f).toBe(true);
      expect(r.stdout + readFileSync(summary, 'utf8')).not.toContain(KEY);
    } finally {
      await server.close();
    }
  });

  it('turns inputs into flags, switches into bare flags, lines into repeated flags, and keys into variables', () => {
    const { args, env } = commandFor({
      INPUT_BASE_URL: 'https://api.example.test',
      INPUT_API_KEY: 'sk-secret-1',
      INPUT_MODEL: 'm1\nm2\n',
      INPUT_STRICT: 'true',
      INPUT_ALL_MODELS: 'false',
      INPUT_DEADLINE: '300000',
      GITHUB_STEP_SUMMARY: '/tmp/summary.md',
    });
    expect(args).toEqual([
      'run',
      '--base-url',
      'https://api.example.test',
      '--model',
      'm1',
      '--model',
      'm2',
      '--deadline',
      '300000',
      '--strict',
      '--reporter',
      'github',
      '--reporter',
      'junit=conformance-reports/junit.xml',
      '--reporter',
      'html=conformance-reports/report.html',
      '--reporter',
      'json=conformance-reports/report.json',
      '--reporter',
      'markdown',
    ]);
    expect(args.join(' ')).not.toContain('sk-secret-1');
    expect(env).toEqual({ CONFORMANCE_API_KEY: 'sk-secret-1' });
  });
});
