// Verdicts at the edges (issue 34), measured from outside against servers that each break one rule
// the way real servers were reported to (mock/core/faults/edges.ts): a refusal is charged to the
// refused field's owner, at its level; an answer served where a refusal was due is held to the
// shape rules by their owners; a rule is judged only on an answer that reached what it is about;
// nothing to judge is not-tested, never a pass, and blocked only by what really blocked it.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../mock/config/default.js';
import { createMock } from '../mock/core/handle.js';
import { faultNamed } from '../mock/core/faults/index.js';
import type { CheckResult } from '../engine/check.js';
import { CHECKS } from '../suites/index.js';
import { errorReply } from '../mock/core/errors.js';
import { isChat, requestJson } from '../mock/core/faults/rewrite.js';
import { loadAgainstMock } from './support/load.js';
import { mockWith, runAgainstMock } from './support/run.js';

const only = (...ids: string[]) => CHECKS.filter((c) => ids.includes(c.id));
const pathsOf = (r: CheckResult) => (r.paths ?? []).map((p) => [p.label, p.outcome, p.blockedBy]);

describe('a refusal of something else (class 3)', () => {
  it('a forced tool_choice refused fails its owners at should; tools.finish-reason judges auto and none, and is blocked on the forced forms', async () => {
    const results = await runAgainstMock(only('tools.finish-reason', 'tools.required', 'tools.named', 'tools.none', 'tools.strict-arguments'), {
      mock: createMock(undefined, { faults: [faultNamed('tools-forced-choice-refused')] }),
      target: { models: ['mock-chat-1'] },
    });
    for (const id of ['tools.required', 'tools.named']) {
      const r = results.get(id)!;
      expect([r.outcome, r.level], r.message).toEqual(['fail', 'should']);
      // Found by asking again without it, not read from the error's words.
      expect(r.message).toMatch(/tool_choice( "required")? was refused \(status 400 .*\), and the same request without it was served/);
    }
    const finish = results.get('tools.finish-reason')!;
    expect(finish.outcome, finish.message).toBe('not-tested');
    expect(pathsOf(finish)).toEqual(
      ['json', 'stream'].flatMap((way) => [
        [`${way}, mock-chat-1, tool_choice auto`, 'pass', undefined],
        [`${way}, mock-chat-1, tool_choice required`, 'not-tested', 'tools.required'],
        [`${way}, mock-chat-1, tool_choice none`, 'pass', undefined],
        [`${way}, mock-chat-1, tool_choice naming get_time`, 'not-tested', 'tools.named'],
      ]),
    );
    expect(results.get('tools.none')!.outcome).toBe('pass');
    expect(results.get('tools.strict-arguments')!.blockedBy).toEqual(['tools.required']);
  });

  it('a model whose catalog entry does not list "required" among the values of tool_choice may refuse it: not-tested, blocked by no one', async () => {
    const config = {
      ...DEFAULT_CONFIG,
      models: DEFAULT_CONFIG.models.map((m) => ({ ...m, parameters: { ...m.parameters, tool_choice: { type: 'enum' as const, values: ['auto', 'none'] } } })),
    };
    const results = await runAgainstMock(only('tools.finish-reason', 'tools.required', 'tools.named'), {
      mock: createMock(config, { faults: [faultNamed('tools-forced-choice-refused')] }),
      target: { models: ['mock-chat-1'] },
    });
    const required = results.get('tools.required')!;
    expect(required.outcome, required.message).toBe('not-tested');
    expect(required.blockedBy).toBeUndefined();
    expect(required.message).toContain('the catalog does not declare it for the model');
    const finish = results.get('tools.finish-reason')!;
    const forced = finish.paths!.find((p) => p.label === 'json, mock-chat-1, tool_choice required')!;
    expect([forced.outcome, forced.blockedBy]).toEqual(['not-tested', undefined]);
    // An enum lists strings only: the named form is owed wherever tool_choice is declared.
    expect(results.get('tools.named')!.outcome).toBe('fail');
    expect(finish.blockedBy).toEqual(['tools.named']);
  });
});

describe('an answer served where a refusal was expected (class 5)', () => {
  it("is held to 2.3 by the enum's owner, at must, beside the refusal's check at should", async () => {
    const results = await runAgainstMock(only('chat.finish-reason', 'errors.unknown-model'), {
      mock: createMock(undefined, { faults: [faultNamed('errors-unknown-model-served-eos')] }),
      target: { models: ['mock-chat-1'] },
    });
    const refusal = results.get('errors.unknown-model')!;
    expect([refusal.outcome, refusal.level]).toEqual(['fail', 'should']);
    const finish = results.get('chat.finish-reason')!;
    expect([finish.outcome, finish.level], finish.message).toEqual(['fail', 'must']);
    for (const p of finish.paths!) {
      expect(p.outcome, p.label).toBe('fail');
      expect(p.message).toMatch(/^model "conformance-no-such-model".*"eos"/);
      // The answer that broke the rule leads the evidence.
      expect(JSON.parse(p.evidence[0].request.body!).model).toBe('conformance-no-such-model');
    }
  });

  it("a refusal told with a 200 and an error body is the refusal check's alone: no shape rule reads it", async () => {
    const results = await runAgainstMock(only('chat.response-shape', 'chat.usage', 'errors.missing-model'), {
      mock: createMock(undefined, { faults: [faultNamed('errors-missing-model-200')] }),
      target: { models: ['mock-chat-1'] },
    });
    expect(results.get('errors.missing-model')!.outcome).toBe('fail');
    for (const id of ['chat.response-shape', 'chat.usage']) expect(results.get(id)!.outcome, results.get(id)!.message).toBe('pass');
  });
});

/** Every stream answered with no chunk: `data: [DONE]` alone. */
const noChunk = mockWith({
  reply: (r, req) =>
    isChat(req) && requestJson(req)?.stream === true && 'status' in r && r.status === 200
      ? { status: 200, headers: { 'content-type': 'text/event-stream' }, stream: [{ delayMs: 0, bytes: 'data: [DONE]\n\n' }] }
      : r,
});

describe('a rule judged only on an answer that reached what it is about (class 6)', () => {
  it('a stop request cut three tokens in, long before its sequence, leaves the stop rules unjudged, blocked by chat.length-only-at-cap, which fails on it', async () => {
    const results = await runAgainstMock(only('stop.finish-reason', 'stop.exact-prefix', 'stop.string', 'chat.length-only-at-cap'), {
      mock: createMock(undefined, { faults: [faultNamed('stop-cut-short-length')] }),
      target: { models: ['mock-chat-1'] },
    });
    for (const id of ['stop.finish-reason', 'stop.exact-prefix']) {
      const r = results.get(id)!;
      expect(r.outcome, r.message).toBe('not-tested');
      expect(r.blockedBy).toEqual(['chat.length-only-at-cap']);
      expect(r.message).toMatch(/ended with finish_reason "length" after \d+ characters, before the place of the stop sequence/);
    }
    expect(results.get('stop.string')!.outcome).toBe('pass');
    const cap = results.get('chat.length-only-at-cap')!;
    expect([cap.outcome, cap.level]).toEqual(['fail', 'must']);
    expect(cap.message).toMatch(/the answer to the stop request ended with "length" after 3 completion tokens, short of max_tokens 64/);
  });

  it('a stream of no chunk leaves the rules of its chunks not-tested, blocked by no check that passed, in run and under load', async () => {
    const ids = ['stream.single-id', 'stream.chunk-schema', 'chat.created-seconds', 'chat.model-echo'];
    const results = await runAgainstMock(only(...ids, 'stream.chunk-json'), { mock: noChunk, target: { models: ['mock-chat-1'] } });
    expect(results.get('stream.chunk-json')!.outcome).toBe('pass');
    for (const id of ids) {
      const r = results.get(id)!;
      const stream = r.paths!.find((p) => p.label.startsWith('stream') || p.label === 'mock-chat-1')!;
      expect([stream.outcome, stream.blockedBy], `${id}: ${stream.message}`).toEqual(['not-tested', undefined]);
      expect(stream.message).toMatch(/no chunk/);
    }
    const load = await loadAgainstMock(noChunk);
    const single = load.results.find((r) => r.id === 'stream.single-id')!;
    expect(single.paths!.map((p) => [p.label, p.outcome, p.blockedBy])).toEqual(['alone', 'concurrency 1', 'concurrency 4'].map((l) => [l, 'not-tested', undefined]));
  });

  it('under load, a must whose every request failed is not-tested, blocked by the load rule that failed on them, not skipped', async () => {
    const failing = mockWith({ reply: (r, req) => (isChat(req) && Array.isArray(requestJson(req)?.tools) ? errorReply(500, 'The tool parser crashed.', 'server_error') : r) });
    const report = await loadAgainstMock(failing);
    const finish = report.results.find((r) => r.id === 'tools.finish-reason')!;
    expect(finish.level).toBe('must');
    expect(finish.paths!.map((p) => [p.label, p.outcome, p.blockedBy])).toEqual(['alone', 'concurrency 1', 'concurrency 4'].map((l) => [l, 'not-tested', 'load.overload-refused']));
    expect(finish.message).toMatch(/answers, none judged: tool call \(tool_choice "required"\).*got status 500/);
    const overload = report.results.find((r) => r.id === 'load.overload-refused')!;
    expect(overload.paths!.every((p) => p.outcome === 'fail')).toBe(true);
  });
});

describe('verdicts with nothing to judge (class 7)', () => {
  it('a server whose every route is 404, with a model named, leaves chat.served-when-valid not-tested: nothing served, nothing turned away', async () => {
    const results = await runAgainstMock(only('chat.served-when-valid', 'chat.role.user'), {
      mock: createMock(undefined, { faults: [faultNamed('every-route-404')] }),
      target: { models: ['mock-chat-1'] },
    });
    const served = results.get('chat.served-when-valid')!;
    expect([served.outcome, served.blockedBy], served.message).toEqual(['not-tested', undefined]);
    expect(served.message).toMatch(/^none of the \d+ valid chat requests of the run was served, nor turned away as busy \(status 404 \(\d+\)\): nothing to count$/);
  });

  it('without a catalog no generated request is owed an answer: fuzz.no-5xx is not-tested, blocked by catalog.available, not by fuzz.no-5xx-refusable', async () => {
    const results = await runAgainstMock(only('fuzz.no-5xx', 'fuzz.no-5xx-refusable', 'catalog.available'), {
      mock: createMock(undefined, { faults: [faultNamed('catalog-absent-wrong-type-500')] }),
    });
    expect(results.get('fuzz.no-5xx-refusable')!.outcome).toBe('fail');
    expect(results.get('catalog.available')!.outcome).toBe('fail');
    const owed = results.get('fuzz.no-5xx')!;
    expect([owed.outcome, owed.blockedBy], owed.message).toEqual(['not-tested', ['catalog.available']]);
    expect(owed.message).toMatch(/each carries an optional field, which only the catalog declares, and the catalog at \S+ answered status 404/);
  });

  it('chat.length-only-at-cap, where no answer ended with "length", is not-tested, blocked by chat.max-tokens, which fails', async () => {
    const results = await runAgainstMock(only('chat.length-only-at-cap', 'chat.max-tokens'), {
      mock: createMock(undefined, { faults: [faultNamed('chat-max-tokens-ignored')] }),
      target: { models: ['mock-chat-1'] },
    });
    expect(results.get('chat.max-tokens')!.outcome).toBe('fail');
    const cap = results.get('chat.length-only-at-cap')!;
    expect([cap.outcome, cap.blockedBy], cap.message).toEqual(['not-tested', ['chat.max-tokens']]);
    expect(cap.message).toContain('no answer ended with "length": nothing to judge');
  });
});
