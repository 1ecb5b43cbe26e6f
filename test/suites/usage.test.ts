// The usage suite (usage on a stream, 6.2): the correct mock passes it, and each check fails on a
// mock broken in the one way its rule forbids (each broken mock names exactly what it fails).
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../mock/core/faults/fault.js';
import { isModels, requestJson, withPayloads } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import type { MockReply, MockRequest } from '../../mock/core/types.js';
import { STREAM } from '../../suites/stream.js';
import { USAGE } from '../../suites/usage.js';
import { notPassing, runAgainstMock } from '../support/run.js';

const CHECKS = [...STREAM, ...USAGE];
type Results = Awaited<ReturnType<typeof runAgainstMock>>;
const failed = (results: Results) => [...results.values()].filter((r) => r.outcome === 'fail').map((r) => r.id).sort();
const explain = (results: Results) => [...results.values()].filter((r) => r.outcome !== 'pass').map((r) => `${r.id}: ${r.outcome}: ${r.message}`).join('\n');

const askedUsage = (req: MockRequest) => (requestJson(req)?.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
const isUsageChunk = (p: any) => typeof p === 'object' && p.usage;
const isFinishChunk = (p: any) => typeof p === 'object' && p.choices?.[0]?.finish_reason;

/** Edits the payloads of streams that asked for usage; other replies pass unchanged. */
const onUsageStream = (edit: (payloads: any[]) => unknown[]) => (r: MockReply, req: MockRequest) => (askedUsage(req) ? withPayloads(r, edit) : r);

const BROKEN: Fault[] = [
  {
    name: 'usage-stream-missing',
    description: 'include_usage is ignored: no chunk carries usage',
    fails: ['usage.stream-present'],
    reply: onUsageStream((ps) => ps.filter((p) => !isUsageChunk(p))),
  },
  {
    name: 'usage-stream-on-every-chunk',
    description: 'Every chunk carries the usage, not only the last',
    fails: ['usage.stream-single'],
    reply: onUsageStream((ps) => {
      const usage = ps.find(isUsageChunk).usage;
      return ps.map((p) => (typeof p === 'object' ? { ...p, usage } : p));
    }),
  },
  {
    name: 'usage-stream-before-finish',
    description: 'The usage chunk comes before the chunk with the finish_reason',
    fails: ['usage.stream-position'],
    reply: onUsageStream((ps) => {
      const usage = ps.find(isUsageChunk);
      const rest = ps.filter((p) => p !== usage);
      const at = rest.findIndex(isFinishChunk);
      return [...rest.slice(0, at), usage, ...rest.slice(at)];
    }),
  },
  {
    name: 'usage-stream-with-choices',
    description: 'The usage chunk carries a choice instead of choices: []',
    fails: ['usage.stream-position'],
    reply: onUsageStream((ps) => ps.map((p) => (isUsageChunk(p) ? { ...p, choices: [{ index: 0, delta: {}, finish_reason: null }] } : p))),
  },
  {
    name: 'usage-stream-shape',
    description: 'The streamed usage has prompt_tokens as a string',
    fails: ['usage.stream-shape'],
    reply: onUsageStream((ps) => ps.map((p) => (isUsageChunk(p) ? { ...p, usage: { ...p.usage, prompt_tokens: String(p.usage.prompt_tokens) } } : p))),
  },
  {
    name: 'usage-stream-total-off',
    description: 'The streamed total_tokens is one more than the sum',
    fails: ['usage.stream-total'],
    reply: onUsageStream((ps) => ps.map((p) => (isUsageChunk(p) ? { ...p, usage: { ...p.usage, total_tokens: p.usage.total_tokens + 1 } } : p))),
  },
  {
    name: 'usage-stream-unasked',
    description: 'A usage chunk is sent though include_usage was not set',
    fails: ['usage.stream-absent'],
    reply: (r, req) =>
      askedUsage(req)
        ? r
        : withPayloads(r, (ps) => {
            const last = ps.filter((p) => typeof p === 'object').at(-1);
            const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
            return [...ps.slice(0, -1), { ...last, choices: [], usage }, ps.at(-1)];
          }),
  },
];

describe('usage suite (stream)', () => {
  it('the correct mock passes every check', async () => {
    const results = await runAgainstMock(CHECKS);
    expect(notPassing(results)).toEqual([]);
  });

  it('has a broken mock that fails each check', () => {
    const killed = new Set(BROKEN.flatMap((f) => f.fails));
    expect(USAGE.map((c) => c.id).filter((id) => !killed.has(id))).toEqual([]);
  });

  describe.concurrent.each(BROKEN.map((f) => [f.name, f] as const))('%s', (_name, fault) => {
    it(`fails exactly ${fault.fails.join(', ')}`, async () => {
      const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [fault] }) });
      expect(failed(results), explain(results)).toEqual([...fault.fails].sort());
    });
  });

  it('leaves the rules about the usage chunk not-tested when there is none', async () => {
    const results = await runAgainstMock(USAGE, { mock: createMock(undefined, { faults: [BROKEN[0]] }) });
    for (const id of ['usage.stream-single', 'usage.stream-position', 'usage.stream-shape', 'usage.stream-total'])
      expect(results.get(id)?.outcome, id).toBe('not-tested');
  });

  it('is not tested when no model is known', async () => {
    const noList: Fault = { name: 'no-list', description: 'The model list fails', fails: [], reply: (r, req) => (isModels(req) ? { status: 500, headers: {}, body: '' } : r) };
    const results = await runAgainstMock(USAGE, { mock: createMock(undefined, { faults: [noList] }) });
    for (const r of results.values()) expect(r.outcome, r.id).toBe('not-tested');
  });

  it('runs on the model named by --model without the model list', async () => {
    const results = await runAgainstMock(USAGE, { target: { models: ['mock-reason-1'] } });
    expect(notPassing(results)).toEqual([]);
  });
});
