// The catalog suite: the correct mock passes it; a catalog that is absent where the user did not
// point leaves every check not-tested; failures name what they found. That each check fails on a
// catalog breaking its rule is proven by the fault catalogue (test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { errorReply } from '../../mock/core/errors.js';
import { isCatalog, withJson } from '../../mock/core/faults/rewrite.js';
import type { MockReply, MockRequest } from '../../mock/core/types.js';
import { CATALOG } from '../../suites/catalog.js';
import { notPassing, rewrittenMock, runAgainstMock } from '../support/run.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const broken = (edit: (req: MockRequest, reply: MockReply) => MockReply): Mock => rewrittenMock(edit);
const onCatalog = (edit: (doc: Json) => unknown) => broken((req, r) => (isCatalog(req) ? withJson(r, edit) : r));
const eachEntry = (edit: (m: Json) => void) => onCatalog((d) => d.data.forEach(edit));
const textOut = (m: Json) => m.output_modalities.find((o: Json) => o.type === 'text');
const entry = (id: string, edit: (m: Json) => void) => onCatalog((d) => void edit(d.data.find((m: Json) => m.id === id)));

const faulty = (name: string) => createMock(undefined, { faults: [name] });

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
    const results = await run(faulty('catalog-schema-version-2-3'));
    expect(results.get('catalog.schema')?.message).toContain('schema_version "2.3"');
  });

  it('covers-models: a model of the second key missing from the catalog is named; with one key it is not looked for', async () => {
    const mock = faulty('catalog-misses-listed-model');
    expect((await run(mock)).get('catalog.covers-models')?.message).toContain('mock-chat-large (listed for the second key)');
    expect(outcome(await run(mock, { secondApiKey: undefined }), 'catalog.covers-models')).toBe('pass');
  });

  it('no listed model has an entry: covers-models fails, the entry checks are not-tested', async () => {
    const results = await run(eachEntry((m) => (m.id = `other/${m.id}`)));
    expect(outcome(results, 'catalog.covers-models')).toBe('fail');
    for (const id of [
      'catalog.pricing',
      'catalog.context-length',
      'catalog.precision',
      'catalog.precision-declared',
      'catalog.supported-parameters',
      'catalog.data-handling',
      'catalog.stop-limit',
      'catalog.enum-values',
    ])
      expect(outcome(results, id), id).toBe('not-tested');
  });

  it('precision-declared: quantization null is named', async () => {
    const results = await run(faulty('catalog-quantization-null'));
    expect(results.get('catalog.precision-declared')?.message).toContain('mock-chat-1: quantization is null');
  });

  it("stop-limit: stop.max_items 8 is held to the document's 4; not-tested when no model declares it", async () => {
    expect((await run(faulty('catalog-stop-max-items-8'))).get('catalog.stop-limit')?.message).toContain('at most 4');
    expect(outcome(await run(eachEntry((m) => delete textOut(m).supported_parameters.stop)), 'catalog.stop-limit')).toBe('not-tested');
  });

  it('enum-values: the foreign value "extreme" is named; not-tested when none is declared', async () => {
    expect((await run(faulty('catalog-reasoning-effort-extreme'))).get('catalog.enum-values')?.message).toContain('"extreme"');
    const none = await run(
      entry('mock-reason-1', (m) => {
        delete textOut(m).supported_parameters.reasoning_effort;
        delete textOut(m).supported_parameters.service_tier;
      }),
    );
    expect(outcome(none, 'catalog.enum-values')).toBe('not-tested');
  });
});
