// The catalog suite: the correct mock passes it; each check fails on a catalog that breaks its
// rule; and a catalog that is absent where the user did not point leaves every check not-tested.
import { describe, expect, it } from 'vitest';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { errorReply } from '../../mock/core/errors.js';
import { isCatalog, withJson } from '../../mock/core/faults/rewrite.js';
import type { MockReply, MockRequest } from '../../mock/core/types.js';
import { CATALOG } from '../../suites/catalog.js';
import { notPassing, runAgainstMock } from '../support/run.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const broken = (edit: (req: MockRequest, reply: MockReply) => MockReply): Mock => {
  const m = createMock();
  return { config: m.config, handle: (req) => edit(req, m.handle(req)) };
};
const onCatalog = (edit: (doc: Json) => unknown) => broken((req, r) => (isCatalog(req) ? withJson(r, edit) : r));
const eachEntry = (edit: (m: Json) => void) => onCatalog((d) => d.data.forEach(edit));
const textOut = (m: Json) => m.output_modalities.find((o: Json) => o.type === 'text');
const entry = (id: string, edit: (m: Json) => void) => onCatalog((d) => void edit(d.data.find((m: Json) => m.id === id)));

const run = (mock: Mock, target = {}) => runAgainstMock(CATALOG, { mock, target });
const outcome = (results: Awaited<ReturnType<typeof run>>, id: string) => results.get(id)?.outcome;

describe('catalog suite', () => {
  it('the correct mock passes every check, and the schema_version found is noted', async () => {
    const results = await runAgainstMock(CATALOG);
    expect(notPassing(results)).toEqual([]);
    expect(results.get('catalog.schema')?.notes).toEqual(['schema_version "2.4"']);
  });

  it('catalog behind auth (401): available, status-200 and schema fail; the entry checks are not-tested', async () => {
    const results = await run(broken((req, r) => (isCatalog(req) && !req.headers.authorization ? errorReply(401, 'Missing Authorization header.', 'invalid_request_error') : r)));
    for (const id of ['catalog.available', 'catalog.status-200', 'catalog.schema']) expect(outcome(results, id), id).toBe('fail');
    expect(results.get('catalog.available')?.message).toContain('status 401');
    for (const id of ['catalog.covers-models', 'catalog.pricing', 'catalog.precision', 'catalog.stop-limit']) expect(outcome(results, id), id).toBe('not-tested');
  });

  it('available: a body that is not JSON fails', async () => {
    const results = await run(broken((req, r) => (isCatalog(req) ? { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>models</html>' } : r)));
    expect(outcome(results, 'catalog.available')).toBe('fail');
    expect(outcome(results, 'catalog.status-200')).toBe('pass');
  });

  it('status-200: a 203 fails status-200 alone', async () => {
    const results = await run(broken((req, r) => (isCatalog(req) && 'body' in r ? { ...r, status: 203 } : r)));
    expect(outcome(results, 'catalog.status-200')).toBe('fail');
    expect(outcome(results, 'catalog.available')).toBe('pass');
  });

  const missing = broken((req, r) => (isCatalog(req) ? errorReply(404, 'No route.', 'invalid_request_error') : r));

  it('a 404 at a site URL the user did not give: every check is not-tested, with the --site-url hint', async () => {
    const results = await run(missing, { siteUrlExplicit: false });
    for (const r of results.values()) {
      expect(r.outcome, r.id).toBe('not-tested');
      expect(r.message, r.id).toContain('--site-url');
    }
  });

  it('a 404 at a site URL the user gave fails available', async () => {
    const results = await run(missing, { siteUrlExplicit: true });
    expect(outcome(results, 'catalog.available')).toBe('fail');
  });

  it('schema: schema_version "2.3" fails, naming the version found', async () => {
    const results = await run(eachEntry((m) => (m.schema_version = '2.3')));
    expect(outcome(results, 'catalog.schema')).toBe('fail');
    expect(results.get('catalog.schema')?.message).toContain('schema_version "2.3"');
  });

  it('covers-models: a model of the second key missing from the catalog fails; with one key it is not looked for', async () => {
    const mock = onCatalog((d) => void (d.data = d.data.filter((m: Json) => m.id !== 'mock-chat-large')));
    const results = await run(mock);
    expect(outcome(results, 'catalog.covers-models')).toBe('fail');
    expect(results.get('catalog.covers-models')?.message).toContain('mock-chat-large (listed for the second key)');
    expect(outcome(results, 'catalog.pricing')).toBe('pass');
    expect(outcome(await run(mock, { secondApiKey: undefined }), 'catalog.covers-models')).toBe('pass');
  });

  it('no listed model has an entry: covers-models fails, the entry checks are not-tested', async () => {
    const results = await run(eachEntry((m) => (m.id = `other/${m.id}`)));
    expect(outcome(results, 'catalog.covers-models')).toBe('fail');
    for (const id of ['catalog.pricing', 'catalog.context-length', 'catalog.precision', 'catalog.precision-declared', 'catalog.supported-parameters', 'catalog.data-handling', 'catalog.stop-limit', 'catalog.enum-values'])
      expect(outcome(results, id), id).toBe('not-tested');
  });

  it('pricing: an entry with no price at all fails', async () => {
    const results = await run(
      entry('mock-reason-1', (m) => {
        delete m.pricing;
        for (const mod of [...m.input_modalities, ...m.output_modalities]) delete mod.pricing;
      }),
    );
    expect(outcome(results, 'catalog.pricing')).toBe('fail');
    expect(outcome(results, 'catalog.schema')).toBe('pass');
  });

  it('context-length: no max_context_length fails', async () => {
    const results = await run(eachEntry((m) => delete m.input_modalities[0].supported_inputs.max_context_length));
    expect(outcome(results, 'catalog.context-length')).toBe('fail');
    expect(outcome(results, 'catalog.schema')).toBe('pass');
  });

  it('precision: quantization missing fails both; null passes precision and fails precision-declared', async () => {
    const absent = await run(entry('mock-chat-1', (m) => delete m.quantization));
    expect(outcome(absent, 'catalog.precision')).toBe('fail');
    expect(outcome(absent, 'catalog.precision-declared')).toBe('fail');
    const nulled = await run(entry('mock-chat-1', (m) => (m.quantization = null)));
    expect(outcome(nulled, 'catalog.precision')).toBe('pass');
    expect(outcome(nulled, 'catalog.precision-declared')).toBe('fail');
    expect(nulled.get('catalog.precision-declared')?.message).toContain('mock-chat-1: quantization is null');
    expect(outcome(await run(entry('mock-chat-1', (m) => (m.quantization = 'fp7'))), 'catalog.precision')).toBe('fail');
  });

  it('supported-parameters: a text output without supported_parameters fails', async () => {
    const results = await run(eachEntry((m) => delete textOut(m).supported_parameters));
    expect(outcome(results, 'catalog.supported-parameters')).toBe('fail');
  });

  it('data-handling: no compliance fails, and so does an empty one', async () => {
    expect(outcome(await run(eachEntry((m) => delete m.compliance)), 'catalog.data-handling')).toBe('fail');
    expect(outcome(await run(eachEntry((m) => (m.compliance = {}))), 'catalog.data-handling')).toBe('fail');
  });

  it('stop-limit: stop.max_items 8 fails, though the schema allows it; not-tested when no model declares it', async () => {
    const results = await run(eachEntry((m) => (textOut(m).supported_parameters.stop.max_items = 8)));
    expect(outcome(results, 'catalog.stop-limit')).toBe('fail');
    expect(results.get('catalog.stop-limit')?.message).toContain('at most 4');
    expect(outcome(results, 'catalog.schema')).toBe('pass');
    expect(outcome(await run(eachEntry((m) => delete textOut(m).supported_parameters.stop)), 'catalog.stop-limit')).toBe('not-tested');
  });

  it('enum-values: reasoning_effort values that include "extreme" fail; not-tested when none is declared', async () => {
    const results = await run(entry('mock-reason-1', (m) => textOut(m).supported_parameters.reasoning_effort.values.push('extreme')));
    expect(outcome(results, 'catalog.enum-values')).toBe('fail');
    expect(results.get('catalog.enum-values')?.message).toContain('"extreme"');
    const none = await run(
      entry('mock-reason-1', (m) => {
        delete textOut(m).supported_parameters.reasoning_effort;
        delete textOut(m).supported_parameters.service_tier;
      }),
    );
    expect(outcome(none, 'catalog.enum-values')).toBe('not-tested');
  });
});
