// `conformance clients` as a user runs it: against the embedded mock every flow of every client
// passes on every model, exit 0, with the matrix and the cost printed as for `run`; against a server
// that breaks what only a client expects (errors-422), the report says no failed rule explains it; and
// where the optional clients are not installed (a copy of the kit whose node_modules lacks them, so
// Node cannot resolve them), it names them with the command that adds them and runs the rest. A
// client named with --client that cannot run (a package missing, no Chromium) is a usage error.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import type { RawReport } from '../../report/report.js';
import { validator } from '../../schemas/index.js';
import { cli } from '../support/cli.js';
import { browserRuns } from '../support/chromium.js';
import { within } from '../support/machine.js';

const dir = mkdtempSync(join(tmpdir(), 'conformance-clients-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = DEFAULT_CONFIG.keys[0].key;
const report = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as RawReport;

// Each test runs the command (or the flows) whole: on a busy machine that is more than vitest's default.
describe('conformance clients', { timeout: within(240_000) }, () => {
  it('against the embedded mock: every flow of every client passes on every model, exit 0, the matrix and the cost printed', async () => {
    const json = join(dir, 'clients.json');
    const r = await cli(['clients', '--reporter', 'pretty', '--reporter', `json=${json}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}flow +openai +ai-sdk +langchain/m);
    expect(r.stdout).toMatch(/^ {2}stream +✓ +✓ +✓/m);
    expect(r.stdout).toMatch(/^ {2}models +✓ +not run \[1\] +not run \[2\]/m);
    expect(r.stdout).toMatch(/\d+ requests sent, asking for at most \d+ tokens in all/);
    expect(r.stdout).toContain('PASSED (exit code 0)');
    const rep = report(json);
    expect(validator('report')(rep).ok).toBe(true);
    const clients = rep.clients!;
    // The browser client runs where Chromium is installed, and says how to get one where it is not.
    expect(clients.clients.map((c) => [c.name, c.installed])).toEqual([
      ['openai', true],
      ['ai-sdk', true],
      ['langchain', true],
      ['openai-browser', browserRuns],
    ]);
    if (!browserRuns) expect(clients.clients[3].missing).toMatch(/apt-get install chromium-headless-shell/);
    for (const c of clients.clients.filter((x) => x.installed)) for (const p of c.packages) expect(p.version, `${c.name}: ${p.name}`).toMatch(/^\d+\.\d+\.\d+/);
    expect(clients.results.filter((f) => f.outcome !== 'pass').map((f) => `${f.id}: ${f.message}`)).toEqual([]);
    expect(clients.results.length).toBe(31 + (browserRuns ? 4 : 0));
    for (const f of clients.results.filter((x) => x.flow !== 'models'))
      expect(
        f.paths.map((p) => p.label),
        f.id,
      ).toEqual(['mock-chat-1', 'mock-reason-1']);
    // The flows' requests are counted in the run's, with the max_tokens they asked for.
    expect(rep.requestsSent!).toBeGreaterThan(clients.requestsSent);
    expect(rep.cost!.maxTokens).toBeGreaterThan(0);
    // The checks the flows rest on ran beside them, and only those and the owners of parts.
    expect(rep.results.some((c) => c.suite === 'catalog' || c.suite === 'fuzz')).toBe(false);
  });

  // Nothing would run, and a run of nothing passes: a client asked for by name must be there.
  it('--client naming the browser client where no Chromium is: exit 2 before the first request, one line saying what to install; by default the browser is named missing and the rest run', async () => {
    const mock = createMock(DEFAULT_CONFIG);
    const server = await startMockServer({ mock });
    try {
      const target = ['--base-url', server.url, '--api-key', KEY];
      const named = await cli(['clients', ...target, '--client', 'openai', '--client', 'openai-browser'], { CONFORMANCE_CHROMIUM: join(dir, 'no-chromium') });
      expect([named.code, named.stdout, named.stderr]).toEqual([
        2,
        '',
        `conformance: not installed: --client openai-browser: no Chromium at ${join(dir, 'no-chromium')}: apt-get install chromium-headless-shell (Debian, Ubuntu), or set CONFORMANCE_CHROMIUM to a Chromium or Chrome binary\n`,
      ]);
      expect(mock.journal.list()).toEqual([]);
      const json = join(dir, 'no-chromium.json');
      const all = await cli(['clients', ...target, '--flow', 'completion', '--reporter', `json=${json}`], { CONFORMANCE_CHROMIUM: join(dir, 'no-chromium') });
      expect(all.code, all.stderr).toBe(0);
      const clients = report(json).clients!;
      expect(clients.clients.map((c) => [c.name, c.installed])).toEqual([
        ['openai', true],
        ['ai-sdk', true],
        ['langchain', true],
        ['openai-browser', false],
      ]);
      expect(clients.results.map((f) => [f.id, f.outcome])).toEqual([
        ['openai.completion', 'pass'],
        ['ai-sdk.completion', 'pass'],
        ['langchain.completion', 'pass'],
      ]);
    } finally {
      await server.close();
    }
  });

  describe('against a server no check faults but the clients do (errors-422)', () => {
    it('says that no failed rule explains the failures, exit 0 (a convention: strict fails it)', async () => {
      const server = await startMockServer({ mock: createMock(undefined, { faults: ['errors-422'] }) });
      try {
        const json = join(dir, '422.json');
        const md = join(dir, '422.md');
        const args = ['clients', '--base-url', server.url, '--api-key', KEY, '--flow', 'bad-request', '--flow', 'completion', '--client', 'openai', '--client', 'ai-sdk', '--client', 'langchain'];
        const r = await cli([...args, '--reporter', 'pretty', '--reporter', `json=${json}`, '--reporter', `markdown=${md}`]);
        expect(r.code, r.stdout).toBe(0);
        expect(r.stdout).toContain('No failed rule explains these 3 client failures: the kit lacks a rule');
        expect(r.stdout).toMatch(/^ {2}bad-request +✗ \[\d\] +✗ \[\d\] +✗ \[\d\]/m);
        expect(r.stdout).toContain('threw UnprocessableEntityError: 422');
        expect(readFileSync(md, 'utf8')).toContain('No failed rule explains these client failures: the kit lacks a rule');
        // The flows' evidence names the key as the variable that holds it, never the key.
        expect(r.stdout + readFileSync(json, 'utf8')).not.toContain(KEY);
        expect(r.stdout).toContain(`'authorization: Bearer '"$CONFORMANCE_API_KEY"`);
        const flows = report(json).clients!.results;
        expect(flows.filter((f) => f.outcome === 'fail').map((f) => [f.id, f.unexplained, f.failureLevel])).toEqual([
          ['openai.bad-request', true, 'should'],
          ['ai-sdk.bad-request', true, 'should'],
          ['langchain.bad-request', true, 'should'],
        ]);
        expect((await cli([...args, '--strict'])).code).toBe(1);
        // Under --strict a team accepts what no check explains by the flows' ids, as it lists checks;
        // --update-baseline writes those ids, and a slip of the id is named.
        const baseline = join(dir, '422-baseline.yaml');
        const written = await cli([...args, '--strict', '--expected-failures', baseline, '--update-baseline']);
        expect(written.code, written.stdout).toBe(0);
        expect(readFileSync(baseline, 'utf8')).toMatch(/check: openai\.bad-request\n.*\n\s+- check: ai-sdk\.bad-request\n.*\n\s+- check: langchain\.bad-request/);
        expect((await cli([...args, '--strict', '--expected-failures', baseline])).code).toBe(0);
        writeFileSync(baseline, 'expected:\n  - check: openai.bad-requst\n    reason: the SDK reads 422\n');
        const slip = await cli([...args, '--expected-failures', baseline]);
        expect([slip.code, slip.stderr]).toEqual([2, expect.stringMatching(/expected\[0\]\.check: .*or of a client flow; "openai\.bad-requst" is none: did you mean openai\.bad-request\?/)]);
      } finally {
        await server.close();
      }
    });
  });

  it('diff holds client flows as it holds checks: a flow that newly fails is a regression (exit 1), the other way round newly passing (exit 0)', async () => {
    const [a, b] = [join(dir, 'clients.json'), join(dir, '422.json')];
    const worse = await cli(['diff', a, b]);
    expect(worse.code, worse.stderr).toBe(1);
    expect(worse.stdout).toMatch(
      /^ {2}client flow openai\.bad-request \[should\]: pass -> fail \(no failed rule explains it: the kit lacks a rule here\): \[mock-chat-1\] threw UnprocessableEntityError/m,
    );
    expect(worse.stdout).toContain('REGRESSION: 3 client flow(s) newly failing');
    const better = await cli(['diff', b, a]);
    expect(better.code, better.stderr).toBe(0);
    expect(better.stdout).toMatch(/^ {2}client flow langchain\.bad-request \[should\]: fail -> pass$/m);
    expect(better.stdout).toContain('no regression');
  });

  it('a failed check lists the flows it broke, and a failed flow the check that explains it; the flows pass the gate as checks do, in every reporter and under a baseline', async () => {
    const server = await startMockServer({ mock: createMock(undefined, { faults: ['tools-call-without-id'] }) });
    try {
      const [json, junit, github, baseline] = ['no-id.json', 'no-id.xml', 'no-id.github', 'no-id.yaml'].map((f) => join(dir, f));
      // --strict: the id is a convention (should), and the gate is under test.
      const args = ['clients', '--strict', '--base-url', server.url, '--api-key', KEY, '--flow', 'tools', '--client', 'openai', '--client', 'ai-sdk', '--client', 'langchain'];
      const reporters = ['--reporter', 'pretty', '--reporter', `json=${json}`, '--reporter', `junit=${junit}`, '--reporter', `github=${github}`];
      const r = await cli([...args, ...reporters]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/tools\.call-valid → openai\.tools, langchain\.tools/);
      expect(r.stdout).toContain('All OpenAI tool calls must have an "id" field');
      const rep = report(json);
      expect(rep.clients!.impact).toEqual([{ check: 'tools.call-valid', flows: ['openai.tools', 'langchain.tools'] }]);
      expect(rep.clients!.results.find((f) => f.id === 'openai.tools')!.brokenBy).toEqual(['tools.call-valid']);
      // A CI reads the failed flows where it reads the failed checks: a <failure> each in JUnit, an
      // ::error each in GitHub's annotations, with the check that explains it.
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toMatch(/<testsuite name="clients\.openai" tests="1" failures="1" /);
      expect(xml).toMatch(/<testcase name="langchain\.tools: [^"]*" classname="conformance\.clients\.langchain"[^>]*>\s*<failure message="[^"]*← tools\.call-valid failed" type="should">/);
      expect(xml).toMatch(/<testsuites name="[^"]*" tests="\d+" failures="3" /);
      const annotations = readFileSync(github, 'utf8');
      expect(annotations).toMatch(/^::error title=client flow openai\.tools \(should\)::.*← tools\.call-valid failed/m);
      expect(annotations).toMatch(/^::error title=tools\.call-valid /m);
      // The check's failure, expected by a baseline, is the flows' too: the same known defect fails nothing.
      writeFileSync(baseline, 'expected:\n  - check: tools.call-valid\n    reason: ids land in 2.4\n');
      const known = await cli([...args, '--expected-failures', baseline, ...reporters]);
      expect(known.code, known.stdout).toBe(0);
      const flow = report(json).clients!.results.find((f) => f.id === 'openai.tools')!;
      expect(flow.expected).toEqual({ reason: 'tools.call-valid: ids land in 2.4' });
      expect(readFileSync(junit, 'utf8')).not.toContain('<failure');
      expect(readFileSync(junit, 'utf8')).toContain('finding, expected failure (baseline: tools.call-valid: ids land in 2.4)');
      expect(readFileSync(github, 'utf8')).toMatch(/^::warning title=client flow openai\.tools \(should\)::.*expected by the baseline/m);
    } finally {
      await server.close();
    }
  });
});

describe('without the optional clients installed', { timeout: within(240_000) }, () => {
  // A copy of the built kit whose node_modules holds every package but the AI SDK's, LangChain's and
  // playwright-core: Node cannot resolve them, as in a project that never installed them.
  const root = join(dir, 'kit');
  const modules = fileURLToPath(new URL('../../node_modules/', import.meta.url));
  const hidden = (name: string) => ['ai', '@ai-sdk', '@langchain', 'playwright-core'].includes(name);
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  cpSync(fileURLToPath(new URL('../../dist/', import.meta.url)), join(root, 'dist'), { recursive: true });
  cpSync(fileURLToPath(new URL('../../package.json', import.meta.url)), join(root, 'package.json'));
  for (const name of readdirSync(modules)) if (!hidden(name) && !name.startsWith('.')) symlinkSync(join(modules, name), join(root, 'node_modules', name));

  it('names the missing clients with the command that adds them, and runs the installed one, exit 0', async () => {
    const json = join(dir, 'missing.json');
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [join(root, 'dist/bin/conformance.js'), 'clients', '--reporter', 'pretty', '--reporter', `json=${json}`],
        { env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('not installed: AI SDK (ai, @ai-sdk/openai-compatible): not installed (cannot find ai)');
    expect(r.stdout).toContain('to add the missing clients: npm install --save-dev ai @ai-sdk/openai-compatible @langchain/openai @langchain/core playwright-core');
    expect(r.stdout).toMatch(/^ {2}stream +✓ +not run \[\d\] +not run \[\d\] +not run \[\d\]/m);
    const clients = report(json).clients!;
    expect(clients.clients.map((c) => [c.name, c.installed])).toEqual([
      ['openai', true],
      ['ai-sdk', false],
      ['langchain', false],
      ['openai-browser', false],
    ]);
    expect(clients.results.every((f) => f.client === 'openai' && f.outcome === 'pass')).toBe(true);
  });

  it('--client naming clients not installed: exit 2 before the first request, one line with the npm command that adds them', async () => {
    const mock = createMock(DEFAULT_CONFIG);
    const server = await startMockServer({ mock });
    try {
      const target = ['--base-url', server.url, '--api-key', KEY];
      const bin = join(root, 'dist/bin/conformance.js');
      const r = await cli(['clients', ...target, '--client', 'openai', '--client', 'ai-sdk', '--client', 'langchain'], {}, undefined, bin);
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        '',
        'conformance: not installed: --client ai-sdk: cannot find ai, @ai-sdk/openai-compatible; --client langchain: cannot find @langchain/openai, @langchain/core; to add them: npm install --save-dev ai @ai-sdk/openai-compatible @langchain/openai @langchain/core\n',
      ]);
      const browser = await cli(['clients', ...target, '--client', 'openai-browser'], {}, undefined, bin);
      expect([browser.code, browser.stderr]).toEqual([
        2,
        expect.stringMatching(/^conformance: not installed: --client openai-browser: cannot find playwright-core.*; to add it: npm install --save-dev playwright-core\n$/),
      ]);
      expect(mock.journal.list()).toEqual([]);
      // The one installed, named, runs.
      const openai = await cli(['clients', ...target, '--client', 'openai', '--flow', 'completion'], {}, undefined, bin);
      expect(openai.code, openai.stderr).toBe(0);
      expect(mock.journal.list().length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
