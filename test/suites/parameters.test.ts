// The parameters suite: the correct mock accepts every declared value and refuses every value
// outside a declared range; failures name the value tried (that each check fails at all is proven
// by the fault catalogue, test/faults.test.ts); without a catalog entry nothing is tested.
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../mock/core/errors.js';
import { isCatalog, withJson } from '../../mock/core/faults/rewrite.js';
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
    expect(results.get('parameters.out-of-range')?.message).toContain('temperature=3 (above the declared max 2)');
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

  it('out-of-range: not-tested when the model declares nothing bounded', async () => {
    const results = await run(
      declared('mock-chat-1', (p) => {
        for (const name of Object.keys(p)) if (name !== 'seed' && name !== 'tools') delete p[name];
      }),
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
    const results = await run(broken((req, r) => (isCatalog(req) ? withJson(r, (d) => void (d.data = d.data.filter((m: Json) => m.id !== 'mock-chat-1'))) : r)));
    for (const r of results.values()) {
      expect(r.outcome, r.id).toBe('not-tested');
      expect(r.message).toContain('mock-chat-1 has no catalog entry');
    }
  });
});
