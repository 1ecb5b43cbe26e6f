// One defect, one failure. Every part of an answer has one owner per path, and the faults that break
// exactly that part fail exactly its owner (test/faults.test.ts holds each fault to its `fails`);
// the shapes real engines send cost one failure each and hide nothing; and a shape defect does not
// blind the checks whose controls ask only that a request be served.
import { describe, expect, it } from 'vitest';
import { createMock } from '../mock/core/handle.js';
import { FAULTS, faultNamed } from '../mock/core/faults/index.js';
import { ENGINE_FAULTS } from '../mock/core/faults/engines.js';
import { COLLATERAL_FAULTS } from '../mock/core/faults/collateral.js';
import { OWNERS, PARTS, type Way } from '../suites/answer.js';
import { CHECKS } from '../suites/index.js';
import { runAgainstMock } from './support/run.js';

const byId = new Map(CHECKS.map((c) => [c.id, c]));
const PROVING = FAULTS.filter((f) => !f.hostile && !f.frontend);

describe('attribution', () => {
  it('every part of an answer has one owner on each way, a check of the registry', () => {
    for (const part of PARTS)
      for (const way of ['json', 'stream'] as Way[]) {
        const owner = OWNERS[part][way];
        if (part === 'complete' || part === 'chunk-json' || part === 'events') {
          expect(OWNERS[part].json, `${part} is a stream's part`).toBeUndefined();
          if (way === 'json') continue;
        }
        expect(owner, `${way}:${part} has an owner`).toBeDefined();
        expect(byId.has(owner!), `${way}:${part} is owned by ${owner}, which is no check`).toBe(true);
      }
  });

  it('every owner is shown failing by a fault that breaks its part, and by no fault that breaks another', () => {
    for (const part of PARTS)
      for (const way of ['json', 'stream'] as Way[]) {
        const owner = OWNERS[part][way];
        if (!owner) continue;
        const breaking = PROVING.filter((f) => f.breaks?.includes(`${way}:${part}`));
        expect(breaking.length, `no fault breaks ${way}:${part}`).toBeGreaterThan(0);
        for (const f of breaking) expect(f.fails, `${f.name} breaks ${way}:${part}`).toContain(owner);
      }
    // A fault that says which parts it breaks fails their owners and nothing else (but a refusal,
    // which is also a refusal of every other check's request of the same conversation).
    for (const f of PROVING.filter((x) => x.breaks?.length && !x.breaks.some((b) => b.endsWith(':served')))) {
      const owners = new Set(f.breaks!.map((b) => OWNERS[b.split(':')[1] as (typeof PARTS)[number]][b.split(':')[0] as Way]));
      expect([...f.fails].sort(), f.name).toEqual([...owners].sort());
    }
  });

  it('every check declares the parts it reads, each a part of the reader', () => {
    const chatChecks = CHECKS.filter((c) => ['chat', 'stop', 'tools', 'structured', 'stream', 'usage'].includes(c.suite));
    for (const c of chatChecks) {
      expect(c.reads, `${c.id} declares what it reads`).toBeDefined();
      for (const p of c.reads!) expect(PARTS as readonly string[], `${c.id} reads ${p}`).toContain(p);
    }
  });

  // The correct mock leaves none not-tested: it passes every check (test/faults.test.ts).
  it.concurrent.each(ENGINE_FAULTS.map((f) => [f.name, f] as const))('%s leaves no MUST check not-tested, as the correct mock leaves none', async (_name, fault) => {
    const bent = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [fault] }) });
    expect([...bent.values()].filter((r) => r.level === 'must' && r.outcome === 'not-tested').map((r) => `${r.id}: ${r.message}`)).toEqual([]);
  });

  // Issue 42: each was a MUST failed on a real server by a convention broken beside it. Under each
  // fault, no MUST check fails or is left not-tested but those the fault declares.
  it.concurrent.each(COLLATERAL_FAULTS.map((f) => [f.name, f] as const))('%s fails no MUST and leaves none not-tested beyond what it declares', async (_name, fault) => {
    const bent = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [fault] }) });
    const collateral = [...bent.values()].filter((r) => r.level === 'must' && (r.outcome === 'fail' || r.outcome === 'not-tested') && !fault.fails.includes(r.id));
    expect(collateral.map((r) => `${r.id}: ${r.outcome}: ${r.message}`)).toEqual([]);
  });

  it('a shape defect hides no auth hole and no accepted five stops: all three are reported', async () => {
    const faults = ['engine-usage-no-completion-details', 'auth-chat-bare-bearer-accepted', 'stop-five-accepted'].map(faultNamed);
    const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults }) });
    const failed = [...results.values()]
      .filter((r) => r.outcome === 'fail')
      .map((r) => r.id)
      .sort();
    expect(failed).toEqual([...new Set(faults.flatMap((f) => f.fails))].sort());
    expect(failed).toEqual(expect.arrayContaining(['chat.usage-details', 'auth.chat.malformed', 'stop.five-refused']));
  });

  it('a not-tested verdict names the check that blocked it, in its message and as blockedBy', async () => {
    const results = await runAgainstMock(
      CHECKS.filter((c) => ['chat.usage', 'chat.usage-total', 'chat.max-tokens'].includes(c.id)),
      { mock: createMock(undefined, { faults: ['chat-usage-missing'] }) },
    );
    expect(results.get('chat.usage')!.outcome).toBe('fail');
    for (const id of ['chat.usage-total', 'chat.max-tokens']) {
      const r = results.get(id)!;
      expect(r.outcome, `${id}: ${r.message}`).toBe('not-tested');
      expect(r.blockedBy).toEqual(['chat.usage']);
      expect(r.message).toContain('needs usage (usage is absent, not a usage object): see chat.usage');
    }
  });

  // Whatever stops a check from judging is some check's rule: the catalog unreadable, the model list
  // missing, a field the kit added refused, an answer cut short of every limit, generated requests
  // all answered 5xx. The check says whose.
  it.concurrent.each([
    ['catalog-not-json', 'catalog.pricing', 'catalog.available'],
    ['catalog-no-supported-parameters', 'parameters.in-range', 'catalog.supported-parameters'],
    ['every-route-404', 'chat.response-shape', 'models.list-shape'],
    ['every-route-404', 'errors.missing-model', 'models.list-shape'],
    ['every-route-404', 'auth.chat.missing', 'models.list-shape'],
    ['chat-length-when-not-cut', 'structured.json-schema', 'chat.length-only-at-cap'],
    ['fuzz-long-string-500', 'fuzz.served-shape', 'fuzz.no-5xx'],
  ])('under %s, %s is not-tested, blocked by %s, which fails', async (fault, id, owner) => {
    const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [fault] }) });
    const r = results.get(id)!;
    expect(r.outcome, r.message).toBe('not-tested');
    expect(r.blockedBy).toEqual([owner]);
    expect(results.get(owner)!.outcome).toBe('fail');
  });

  // A field the kit adds for its own ends, refused, is found by asking again without it: the checks
  // that sent it only to share a request are judged on the answer without it, not blocked.
  it('under stream-options-refused, the checks whose controls were streamed are judged without it, and usage.stream-present fails alone', async () => {
    const results = await runAgainstMock(
      CHECKS.filter((c) => ['errors.missing-messages', 'auth.key-scope', 'usage.stream-present', 'usage.stream-single'].includes(c.id)),
      { mock: createMock(undefined, { faults: ['stream-options-refused'] }) },
    );
    expect(results.get('usage.stream-present')!.outcome).toBe('fail');
    // A rule about the usage stream_options asks for is blocked by its owner, never judged without it.
    expect(results.get('usage.stream-single')!.blockedBy).toEqual(['usage.stream-present']);
    for (const id of ['errors.missing-messages', 'auth.key-scope']) {
      const r = results.get(id)!;
      expect(r.outcome, r.message).toBe('pass');
      expect(r.notes?.join('\n')).toContain('judged with less: stream_options {"include_usage":true} was refused');
    }
  });

  it('a catalog whose entries declare no supported_parameters still leaves every chat rule a model to judge', async () => {
    const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: ['catalog-no-supported-parameters'] }) });
    const open = [...results.values()].filter((r) => ['chat', 'stream', 'usage', 'stop', 'tools', 'structured'].includes(r.suite) && r.outcome === 'not-tested');
    expect(open.map((r) => `${r.id}: ${r.message}`)).toEqual([]);
  });

  it("a failure's evidence starts with the exchange that broke the rule, not with its control", async () => {
    const results = await runAgainstMock(
      CHECKS.filter((c) => ['parameters.out-of-range', 'errors.invalid-json'].includes(c.id)),
      { mock: createMock(undefined, { faults: ['parameters-ranges-ignored', 'errors-invalid-json-500'] }) },
    );
    const range = results.get('parameters.out-of-range')!;
    expect(range.outcome, range.message).toBe('fail');
    const failing = range.paths!.find((p) => p.outcome === 'fail')!;
    // The value the path is about, beyond the declared range, is the first request shown.
    const first = JSON.parse(failing.evidence[0].request.body!) as Record<string, unknown>;
    expect(failing.message).toContain(`${String(failing.path.parameter)}=${JSON.stringify(first[String(failing.path.parameter)])}`);
    expect(failing.evidence[0].reproduce).toMatch(/^curl /);
    const json = results.get('errors.invalid-json')!;
    expect(json.outcome, json.message).toBe('fail');
    for (const p of json.paths!.filter((x) => x.outcome === 'fail')) expect(() => JSON.parse(p.evidence[0].request.body!)).toThrow();
  });
});
