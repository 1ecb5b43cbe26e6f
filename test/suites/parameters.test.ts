// The parameters suite: the correct mock accepts every declared value and refuses every value
// outside a declared range; failures name the value tried (that each check fails at all is proven
// by the fault catalogue, test/faults.test.ts); without a catalog entry nothing is tested.
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../mock/core/errors.js';
import { isCatalog, requestJson, withJson } from '../../mock/core/faults/rewrite.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import type { MockReply, MockRequest } from '../../mock/core/types.js';
import { PARAMETERS } from '../../suites/parameters.js';
import { notPassing, rewrittenMock, runAgainstMock } from '../support/run.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const broken = (edit: (req: MockRequest, reply: MockReply) => MockReply, base: Mock = createMock()): Mock => rewrittenMock(edit, undefined, base);
const declared = (id: string, edit: (params: Json) => void) =>
  broken((req, r) => (isCatalog(req) ? withJson(r, (d) => void edit(d.data.find((m: Json) => m.id === id).output_modalities[0].supported_parameters)) : r));

const faulty = (name: string) => createMock(undefined, { faults: [name] });

const run = (mock?: Mock, target = {}) => runAgainstMock(PARAMETERS, { mock, target });
const outcome = (results: Awaited<ReturnType<typeof run>>, id: string) => results.get(id)?.outcome;

describe('parameters suite', () => {
  it('the correct mock passes both checks, on the discovered model and on the reasoning model', async () => {
    expect(notPassing(await run())).toEqual([]);
    expect(notPassing(await run(undefined, { models: ['mock-reason-1'] }))).toEqual([]);
  });

  it('out-of-range: a value the server takes though outside the declared range is named', async () => {
    const results = await run(faulty('parameters-ranges-ignored'));
    const r = results.get('parameters.out-of-range')!;
    expect(r.message).toContain('[mock-chat-1, temperature] temperature=-0.02 (just below the declared min 0) was not refused: it was served (status 200)');
    expect(r.message).toContain('temperature=2.02 (just above the declared max 2)');
    expect(r.paths!.filter((p) => p.outcome === 'fail').map((p) => p.label)).toEqual(['mock-chat-1, temperature', 'mock-chat-1, top_p', 'mock-chat-1, max_tokens', 'mock-reason-1, max_tokens']);
  });

  it('in-range: a declared value the server refuses is named', async () => {
    const results = await run(faulty('parameters-catalog-overstates-range'));
    expect(results.get('parameters.in-range')?.message).toContain('temperature=5');
  });

  it('in-range: an enum value the server refuses fails', async () => {
    const mock = broken((req, r) => (!isCatalog(req) && String(req.body).includes('"service_tier":"flex"') ? errorReply(400, 'flex is not offered', 'invalid_request_error') : r));
    const results = await run(mock, { models: ['mock-reason-1'] });
    expect(outcome(results, 'parameters.in-range')).toBe('fail');
    expect(results.get('parameters.in-range')?.message).toContain('service_tier="flex"');
  });

  it('in-range: both ends and a value inside are sent for a range, each declared value for an enum', async () => {
    const sent: string[] = [];
    const mock = rewrittenMock(
      (_req, reply) => reply,
      (req) => {
        const b: Json = requestJson(req) ?? {};
        if (b.model === 'mock-reason-1' && b.messages?.[0]?.content === 'Say OK.' && b.reasoning_effort) sent.push(b.reasoning_effort);
        if (b.model === 'mock-chat-1' && b.messages?.[0]?.content === 'Say OK.' && b.temperature !== undefined) sent.push(`t=${b.temperature}`);
        return req;
      },
    );
    await run(mock);
    expect(sent.sort()).toEqual(['conformance-invalid', 'high', 'low', 'medium', 't=-0.02', 't=0', 't=1', 't=2', 't=2.02'].sort());
  });

  it('out-of-range: a fraction for an integer parameter is refused, or named', async () => {
    const results = await run(faulty('parameters-fraction-truncated'));
    expect(results.get('parameters.out-of-range')?.message).toContain('[mock-chat-1, max_tokens] max_tokens=1.5 (a fraction, for an integer parameter) was not refused');
  });

  it('out-of-range: not-tested when the model declares nothing bounded', async () => {
    const results = await run(
      declared('mock-chat-1', (p) => {
        for (const name of Object.keys(p)) if (name !== 'tools') delete p[name];
        p.temperature = { type: 'range', default: 1 };
      }),
      { models: ['mock-chat-1'] },
    );
    expect(outcome(results, 'parameters.out-of-range')).toBe('not-tested');
    expect(outcome(results, 'parameters.in-range')).toBe('pass');
  });

  it('not-tested without a catalog, and for a model without an entry', async () => {
    const noCatalog = broken((req, r) => (isCatalog(req) ? errorReply(404, 'No route.', 'invalid_request_error') : r));
    for (const siteUrlExplicit of [true, false]) {
      const results = await run(noCatalog, { siteUrlExplicit });
      for (const r of results.values()) expect(r.outcome, `${r.id} (site URL given: ${siteUrlExplicit})`).toBe('not-tested');
    }
    const results = await run(
      broken((req, r) => (isCatalog(req) ? withJson(r, (d) => void (d.data = d.data.filter((m: Json) => m.id !== 'mock-chat-1'))) : r)),
      { models: ['mock-chat-1'] },
    );
    for (const r of results.values()) {
      expect(r.outcome, r.id).toBe('not-tested');
      expect(r.message).toContain('mock-chat-1 has no catalog entry');
    }
  });
});
