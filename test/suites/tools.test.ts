// The tools suite passes against the mock, and is not tested where the catalog does not declare
// tools. That each check fails on a mock broken in the one way it looks for is proven by the fault
// catalogue (mock/core/faults/tools.ts, test/faults.test.ts); here, what some of those faults leave
// the other checks to say.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import type { MockConfig } from '../../mock/config/types.js';
import { errorReply } from '../../mock/core/errors.js';
import { createMock } from '../../mock/core/handle.js';
import { TOOLS } from '../../suites/tools.js';
import { notPassing, rewrittenMock, runAgainstMock } from '../support/run.js';

const withoutParameter = (name: string): MockConfig => ({
  ...DEFAULT_CONFIG,
  models: DEFAULT_CONFIG.models.map((m) => ({ ...m, parameters: Object.fromEntries(Object.entries(m.parameters).filter(([k]) => k !== name)) })),
});

describe('tools suite', () => {
  it('passes against the mock', async () => {
    const results = await runAgainstMock(TOOLS);
    expect(notPassing(results)).toEqual([]);
  });

  it('is not-tested when the catalog entry does not declare tools', async () => {
    const results = await runAgainstMock(TOOLS, { mock: createMock(withoutParameter('tools')) });
    for (const r of results.values()) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
      expect(r.message).toMatch(/does not declare tools/);
    }
  });

  it('is not-tested when the catalog is missing', async () => {
    const m = createMock();
    const mock = rewrittenMock((req, r) => (req.path.startsWith('/models.json') ? errorReply(404, 'no catalog', 'not_found') : r), undefined, m);
    const results = await runAgainstMock(TOOLS, { mock });
    for (const r of results.values()) expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
  });

  it('still sends a tool result, with a fixed call, when the required answer was unusable', async () => {
    const results = await runAgainstMock(TOOLS, { mock: createMock(undefined, { faults: ['tools-arguments-not-json'] }) });
    const r = results.get('tools.result-answered')!;
    expect(r.outcome, r.message).toBe('pass');
    expect(r.notes?.join()).toMatch(/fixed get_weather call/);
  });

  it('holds the named finish_reason apart from the named call', async () => {
    const results = await runAgainstMock(TOOLS, { mock: createMock(undefined, { faults: ['tools-named-finish-stop'] }) });
    expect(results.get('tools.named')!.outcome).toBe('pass');
    expect(results.get('tools.named.finish-reason')!.outcome).toBe('fail');
  });
});
