// Attribution by experiment (suites/ask.ts): a refused request is located by asking again with less,
// never by reading the error's words. Every field the kit sends has one owner in one registry; each
// refusal fault fails exactly its owner at its level, with no collateral MUST; a check that sent the
// field for its own ends is judged on the answer without it; and what that costs is in the summary.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMock } from '../mock/core/handle.js';
import { faultNamed } from '../mock/core/faults/index.js';
import { COLLATERAL_FAULTS } from '../mock/core/faults/collateral.js';
import { REFUSAL_FAULTS } from '../mock/core/faults/refusals.js';
import { FIELDS, owes } from '../suites/fields.js';
import { ask } from '../suites/ask.js';
import { CHECKS } from '../suites/index.js';
import { pass, type CheckResult } from '../engine/check.js';
import type { ApiCheck } from '../suites/api.js';
import { cli } from './support/cli.js';
import { loadAgainstMock } from './support/load.js';
import { startMockProcess } from './support/mock-process.js';
import { KEY, runAgainstMock, SECOND_KEY } from './support/run.js';

const ids = new Set(CHECKS.map((c) => c.id));
const schema = JSON.parse(readFileSync(fileURLToPath(new URL('../schemas/request.schema.json', import.meta.url)), 'utf8'));

/** MUST checks that failed, or were left unjudged by nothing that failed: what a refusal must not draw beside its owner. */
function collateral(results: Map<string, CheckResult>, owners: readonly string[]): string[] {
  const failed = (id: string) => ['fail', 'flaky'].includes(results.get(id)?.outcome ?? '');
  return [...results.values()]
    .filter((r) => r.level === 'must' && !owners.includes(r.id))
    .flatMap((r) => {
      if (r.outcome === 'fail') return [`${r.id} failed: ${r.message}`];
      if (r.outcome === 'not-tested' && !(r.blockedBy?.length && r.blockedBy.every(failed))) return [`${r.id} not-tested by no failed check: ${r.message}`];
      return [];
    });
}

describe('the registry of request fields', () => {
  it('holds every field of the request schema, and no other, each owned by a check of the registry', () => {
    expect(Object.keys(FIELDS).sort()).toEqual(Object.keys(schema.properties).sort());
    for (const [field, rule] of Object.entries(FIELDS))
      for (const value of [undefined, 'required', 'none', 'auto', ['x'], 'x', { type: 'json_schema' }, { type: 'function', function: { name: 'f' } }])
        expect(ids, `${field} = ${JSON.stringify(value)} is owned by ${rule.owner(value)}`).toContain(rule.owner(value));
  });

  it('owes a field the document owes on every model, one of the catalog only where the entry declares it (an enum, the value among its values)', () => {
    expect(owes('max_tokens', 16, undefined)).toBe(true);
    expect(owes('stream_options', { include_usage: true }, undefined)).toBe(true);
    expect(owes('temperature', 0, undefined)).toBe(false);
    expect(owes('temperature', 0, { top_p: { type: 'range' } })).toBe(false);
    expect(owes('temperature', 0, { temperature: { type: 'range' } })).toBe(true);
    expect(owes('tool_choice', 'required', { tool_choice: { type: 'enum', values: ['auto', 'none'] } })).toBe(false);
    expect(owes('tool_choice', 'auto', { tool_choice: { type: 'enum', values: ['auto', 'none'] } })).toBe(true);
  });

  it('a check that adds a field with no owner to one request fails, naming the field and the registry', async () => {
    const stray: ApiCheck = {
      id: 'chat.stray-field',
      suite: 'chat',
      title: 'sends a field the registry does not know',
      section: '2.1',
      level: 'must',
      async run(ctx) {
        await ask(ctx, { model: 'mock-chat-1' }, { model: 'mock-chat-1', messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 16, logit_bias: { 50256: -100 } }, 'a stray field');
        return pass();
      },
    };
    const r = (await runAgainstMock([stray])).get('chat.stray-field')!;
    expect(r.outcome).toBe('fail');
    expect(r.message).toContain('the kit sends logit_bias with no owner in suites/fields.ts');
  });
});

describe('refusals located by asking again', () => {
  it.concurrent.each(REFUSAL_FAULTS.map((f) => [f.name, f] as const))('%s fails exactly its owner, at its level, and no other MUST', async (_name, fault) => {
    const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [fault] }) });
    const failed = [...results.values()].filter((r) => r.outcome === 'fail').map((r) => `${r.id} (${r.level})`);
    expect(failed.sort()).toEqual(fault.fails.map((id) => `${id} (${results.get(id)!.level})`).sort());
    expect(collateral(results, fault.fails)).toEqual([]);
  });

  it('a check that sent the refused field for its own ends is judged on the answer without it, and says so', async () => {
    const results = await runAgainstMock(
      CHECKS.filter((c) => ['stop.string', 'stop.ends-generation', 'parameters.in-range'].includes(c.id)),
      { mock: createMock(undefined, { faults: [faultNamed('reasoning-temperature-refused')] }), target: { models: ['mock-reason-1'] } },
    );
    for (const id of ['stop.string', 'stop.ends-generation']) {
      const r = results.get(id)!;
      expect(r.outcome, r.message).toBe('pass');
      expect(r.notes?.join('\n')).toMatch(/judged with less: temperature 0 was refused \(status 400 .*\), and the same request without it was served; see parameters\.in-range/);
    }
    // The refusal is the owner's, on its own path: the temperature the catalog declares.
    const owner = results.get('parameters.in-range')!;
    expect(owner.outcome).toBe('fail');
    expect(owner.paths!.filter((p) => p.outcome === 'fail').map((p) => p.label)).toEqual(['mock-reason-1, temperature']);
  });

  it("a model the list names and chat answers 404 is models.ids-usable's; the rules run on a model of its kind, and the report says so", async () => {
    const results = await runAgainstMock(
      CHECKS.filter((c) => ['models.ids-usable', 'chat.max-tokens', 'chat.response-shape'].includes(c.id)),
      {
        mock: createMock(undefined, { faults: [faultNamed('models-tagged-id-not-found')] }),
      },
    );
    expect(
      results
        .get('models.ids-usable')!
        .paths!.filter((p) => p.outcome === 'fail')
        .map((p) => p.label),
    ).toEqual(['mock-chat-1:latest']);
    for (const id of ['chat.max-tokens', 'chat.response-shape']) {
      const r = results.get(id)!;
      expect(r.outcome, r.message).toBe('pass');
      expect(r.paths!.map((p) => p.path.model)).toContain('mock-chat-1');
      expect(r.paths!.map((p) => p.path.model)).not.toContain('mock-chat-1:latest');
    }
  });
});

describe('refusals under load', () => {
  // A load judges every answer with the run's rules, but not the owners of the fields (no request of
  // a load tries a parameter): a refusal fails no rule there. A field sent for the kit's own ends is
  // left out where working the mix out found it refused; a kind whose rules are about it is left out
  // of the mix; a request refused alone is left out of the sweep, never counted as overload.
  it.concurrent.each(REFUSAL_FAULTS.map((f) => [f.name, f] as const))('%s fails no rule under load, and leaves no MUST unjudged but what it was about', async (_name, fault) => {
    const model = fault.on === 'mock-reason-1' ? ['mock-reason-1'] : undefined;
    const report = await loadAgainstMock(createMock(undefined, { faults: [fault] }), { models: model });
    const failed = report.results.filter((r) => r.outcome === 'fail').map((r) => `${r.id}: ${r.message}`);
    expect(failed).toEqual([]);
    // Each path not judged says why: a kind left out, or a refusal alone.
    const open = report.results.filter((r) => r.level === 'must' && r.outcome === 'not-tested' && !r.blockedBy?.length);
    for (const r of open) expect(r.message, r.id).toMatch(/refused alone|no answer of its kind|none judged/);
  });

  // The other classes of collateral failure (test/collateral.test.ts, in a run): under load too, a
  // rule that fails is one the fault declares, each at its level.
  it.concurrent.each(COLLATERAL_FAULTS.map((f) => [f.name, f] as const))('%s fails under load only what it declares', async (_name, fault) => {
    const report = await loadAgainstMock(createMock(undefined, { faults: [fault] }));
    const failed = report.results.filter((r) => r.outcome === 'fail');
    expect(failed.filter((r) => !fault.fails.includes(r.id)).map((r) => `${r.id}: ${r.message}`)).toEqual([]);
  });
});

describe('what attribution costs', () => {
  const run = async (fault?: string) => {
    const mock = await startMockProcess(['--pace', 'instant', ...(fault ? ['--fault', fault] : [])]);
    const dir = mkdtempSync(join(tmpdir(), 'conformance-cost-'));
    try {
      const json = join(dir, 'report.json');
      const r = await cli(['run', '--base-url', mock.url, '--api-key', KEY, '--second-api-key', SECOND_KEY, '--reporter', 'pretty', '--reporter', `json=${json}`], { NO_COLOR: '1' });
      return { ...r, cost: JSON.parse(readFileSync(json, 'utf8')).cost };
    } finally {
      mock.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('is counted in the summary: none against the correct mock, and each request asked again where a field is refused', async () => {
    const [correct, refused] = await Promise.all([run(), run('reasoning-temperature-refused')]);
    expect(correct.cost.askedAgain).toBe(0);
    expect(correct.stdout).not.toContain('asked again');
    expect(refused.cost.askedAgain).toBeGreaterThan(0);
    expect(refused.stdout).toContain(`${refused.cost.askedAgain} asked again with less to find which field a refusal was of)`);
  });
});
