// The vitest entry with the client flows: a test per flow and model beside the checks', failing where
// `conformance clients` would fail the run, a failure no rule explains skipped with why (and thrown
// with strict: true), a client that is not installed a skipped test that says how to add it.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { runSession } from '../../suites/session.js';
import { clientsBeside } from '../../clients/session.js';
import { describeConformance, flowCases } from '../../suites/vitest.js';
import { KEY } from './support.js';

describeConformance({
  name: 'the mock and the clients, from inside a vitest run',
  suites: ['stop'],
  clients: { flows: ['completion', 'stop'] },
  start: async () => {
    const server = await startMockServer();
    return { baseUrl: server.url, apiKey: KEY, close: () => server.close() };
  },
});

describe('flow cases', () => {
  it('a failure no failed rule explains is skipped with why, and fails with strict: true, naming what the client threw and the command that replays it', async () => {
    const server = await startMockServer({ mock: createMock(undefined, { faults: ['errors-422'] }) });
    try {
      const report = await runSession({ baseUrl: server.url, apiKey: KEY, checks: ['stop.*'], beside: clientsBeside({ clients: ['openai'], flows: ['bad-request'] }) });
      const [lax] = flowCases(report.clients!.results).filter((c) => c.path === 'mock-chat-1');
      expect(lax.check).toBe('openai.bad-request');
      expect(lax.skip).toMatch(/^failed, a convention no failed must explains/);
      expect(() => lax.assert()).not.toThrow();
      const [strict] = flowCases(report.clients!.results, { strict: true }).filter((c) => c.path === 'mock-chat-1');
      expect(() => strict.assert()).toThrow(/^openai\.bad-request \(should\)[\s\S]*UnprocessableEntityError[\s\S]*no failed rule explains it[\s\S]*Reproduce with: curl /);
    } finally {
      await server.close();
    }
  });
});
