// The tools suite passes against the mock, and is not tested where the catalog does not declare
// tools. That each check fails on a mock broken in the one way it looks for is proven by the fault
// catalogue (mock/core/faults/tools.ts, test/faults.test.ts); here, what some of those faults leave
// the other checks to say.
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../mock/core/errors.js';
import { faultNamed } from '../../mock/core/faults/index.js';
import { requestJson } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { TOOLS } from '../../suites/tools.js';
import { expectNotTestedWithout, notPassing, rewrittenMock, runAgainstMock } from '../support/run.js';

describe('tools suite', () => {
  it('passes against the mock', async () => {
    const results = await runAgainstMock(TOOLS);
    expect(notPassing(results)).toEqual([]);
  });

  it('runs every rule on both paths, each model that may take tools, and tool_choice auto, required, none and named', async () => {
    const results = await runAgainstMock(TOOLS);
    expect(results.get('tools.finish-reason')!.paths!.map((p) => p.label)).toEqual(
      ['json', 'stream'].flatMap((s) => ['mock-chat-1', 'mock-reason-1'].flatMap((m) => ['auto', 'required', 'none', 'naming get_time'].map((c) => `${s}, ${m}, tool_choice ${c}`))),
    );
  });

  it('has no path where the catalog declares no tools for any model under test', async () => {
    await expectNotTestedWithout(TOOLS, 'tools');
  });

  it('without a catalog, runs on the first and last listed models, and passes a server that serves tools', async () => {
    const mock = rewrittenMock((req, r) => (req.path.startsWith('/models.json') ? errorReply(404, 'no catalog', 'not_found') : r));
    const results = await runAgainstMock(TOOLS, { mock });
    expect(notPassing(results)).toEqual([]);
    expect(results.get('tools.none')!.paths!.map((p) => p.label)).toEqual(['json, mock-chat-1', 'json, mock-reason-1', 'stream, mock-chat-1', 'stream, mock-reason-1']);
  });

  it('without a catalog, a model that refuses tools with a JSON error is not-tested, never failed', async () => {
    const mock = rewrittenMock((req, r) => {
      if (req.path.startsWith('/models.json')) return errorReply(404, 'no catalog', 'not_found');
      return req.path.startsWith('/v1/chat') && String(Buffer.from(req.body ?? '')).includes('"tools"') ? errorReply(400, 'tools are not supported', 'invalid_request_error') : r;
    });
    const results = await runAgainstMock(TOOLS, { mock });
    for (const r of results.values()) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
      expect(r.message).toContain('tools was refused (status 400 (tools are not supported)), and the same request without it was served, and the catalog does not declare it');
    }
  });

  it('still sends a tool result, with a fixed call, when the required answer was unusable', async () => {
    const results = await runAgainstMock(TOOLS, { mock: createMock(undefined, { faults: ['tools-arguments-not-json'] }) });
    const r = results.get('tools.result-answered')!;
    expect(r.outcome, r.message).toBe('pass');
    expect(r.notes?.join()).toMatch(/fixed get_weather call/);
  });

  it("holds the tool-call deltas of every tool stream of the run, not only of its own request's", async () => {
    // Only the streams asked with tool_choice naming a function repeat the call's id and name.
    const repeats = faultNamed('tools-stream-delta-repeats-id-name');
    const onNamed = { ...repeats, name: 'repeats-on-named', reply: (r, req, ctx) => (typeof requestJson(req)?.tool_choice === 'object' ? repeats.reply!(r, req, ctx) : r) } satisfies typeof repeats;
    const results = await runAgainstMock(TOOLS, { mock: createMock(undefined, { faults: [onNamed] }) });
    expect([...results.values()].filter((x) => x.outcome === 'fail').map((x) => x.id)).toEqual(['tools.stream']);
    const r = results.get('tools.stream')!;
    for (const p of r.paths!) {
      expect(p.outcome).toBe('fail');
      expect(p.message).toMatch(/^tool_choice naming get_time, streamed: event \d+: a later delta of tool call 0 sends its id "call_\w+" again \(openai-python joins it as "(call_\w+)\1"\)/);
      // Cited by the stream that broke the rule.
      expect(JSON.parse(p.evidence[0].request.body!).tool_choice).toEqual({ type: 'function', function: { name: 'get_time' } });
    }
    const named = results.get('tools.named')!;
    expect(named.paths!.filter((p) => p.outcome !== 'pass').map((p) => [p.label, p.outcome, p.blockedBy])).toEqual([
      ['stream, mock-chat-1', 'not-tested', 'tools.stream'],
      ['stream, mock-reason-1', 'not-tested', 'tools.stream'],
    ]);
  });

  it('holds the finish_reason apart from the named call, on the path where it breaks', async () => {
    const results = await runAgainstMock(TOOLS, { mock: createMock(undefined, { faults: ['tools-named-finish-stop'] }) });
    expect(results.get('tools.named')!.outcome).toBe('pass');
    const r = results.get('tools.finish-reason')!;
    expect(r.outcome).toBe('fail');
    expect(r.paths!.filter((p) => p.outcome === 'fail').map((p) => p.label)).toEqual(['json, mock-chat-1, tool_choice naming get_time', 'json, mock-reason-1, tool_choice naming get_time']);
  });
});
