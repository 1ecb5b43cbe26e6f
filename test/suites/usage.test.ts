// The usage suite (usage on a stream, 6.2; the correct mock passes it with the stream suite, in
// stream.test.ts): the rules about the usage chunk are not tested without one. That each check fails on a mock broken in the one way its
// rule forbids is proven by the fault catalogue (mock/core/faults/usage.ts, test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../mock/core/faults/fault.js';
import { isModels } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { USAGE } from '../../suites/usage.js';
import { notPassing, runAgainstMock } from '../support/run.js';

describe('usage suite (stream)', () => {
  it('leaves the rules about the usage chunk not-tested when there is none', async () => {
    const results = await runAgainstMock(USAGE, { mock: createMock(undefined, { faults: ['usage-stream-missing'] }) });
    for (const id of ['usage.stream-single', 'usage.stream-position', 'usage.stream-shape', 'usage.stream-total']) expect(results.get(id)?.outcome, id).toBe('not-tested');
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
