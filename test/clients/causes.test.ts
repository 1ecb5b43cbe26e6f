// What kind of cause a failed flow has, said in words an implementer acts on (issue 45): a rule of
// the document its own answers broke; a requirement outside the document (a client's own check of tool
// arguments against the parameters it declared; CORS for a page); a precondition it never reached (a
// model that does not stop within the cap); and only then that no rule explains it.
import { describe, expect, it } from 'vitest';
import { checksForFlows, clientsBeside } from '../../clients/session.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import type { RunReport } from '../../report/report.js';
import { runSession } from '../../suites/session.js';
import { browserRuns } from '../support/chromium.js';
import { KEY } from './support.js';
import { within } from '../support/machine.js';

async function clientsAgainst(fault: string, clients: string[]): Promise<RunReport> {
  const server = await startMockServer({ mock: createMock(undefined, { faults: [fault] }) });
  try {
    const choice = { clients };
    return await runSession({ baseUrl: server.url, apiKey: KEY, models: ['mock-chat-1'], checks: checksForFlows(choice), without: ['fuzz'], beside: clientsBeside(choice) });
  } finally {
    await server.close();
  }
}

const failedFlows = (report: RunReport) => report.clients!.results.filter((f) => f.outcome === 'fail');

describe.concurrent('the kind of cause of a failed flow', { timeout: within(240_000) }, () => {
  it('tool arguments the declared parameters do not allow: outside the document, no rule failed', async () => {
    const report = await clientsAgainst('tools-arguments-off-schema', ['langchain', 'ai-sdk', 'openai']);
    expect(report.results.filter((r) => r.outcome === 'fail').map((r) => r.id)).toEqual([]);
    const failed = failedFlows(report);
    // LangChain parses a call's arguments with the tool's schema; the others hand them over as they came.
    expect(failed.map((f) => f.id).sort()).toEqual(['langchain.tools']);
    for (const f of failed) {
      expect(f.cause?.kind, `${f.id}: ${f.message}`).toBe('outside');
      expect(f.cause?.why).toMatch(/do not match the parameters the request declared for it .*a client's own check; the document does not show tool definitions/);
      expect(f.failureLevel).toBe('should');
      expect(f.unexplained).toBeUndefined();
    }
  });

  it('a model that never stops: a precondition never reached, chat.natural-stop not tested for the same reason', async () => {
    const report = await clientsAgainst('model-never-stops', ['openai', 'ai-sdk', 'langchain']);
    expect(report.results.filter((r) => r.outcome === 'fail').map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(report.results.find((r) => r.id === 'chat.natural-stop')!.outcome).toBe('not-tested');
    const failed = failedFlows(report);
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) {
      expect(f.cause?.kind, `${f.id}: ${f.message}`).toBe('precondition');
      expect(f.cause?.why).toMatch(/the model did not stop within max_tokens \d+ \(finish_reason "length"\)/);
      expect(f.unexplained).toBeUndefined();
    }
  });

  it.skipIf(!browserRuns)('an API without CORS, in a page: outside the document, asked again of the API as the page asked it', async () => {
    const report = await clientsAgainst('cors-absent', ['openai-browser']);
    expect(report.results.filter((r) => r.outcome === 'fail').map((r) => r.id)).toEqual([]);
    const failed = failedFlows(report);
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) {
      expect(f.cause?.kind, `${f.id}: ${f.message}`).toBe('outside');
      expect(f.cause?.why).toMatch(
        /preflight \(OPTIONS from origin http:\/\/127\.0\.0\.1:\d+\) with status 404 and no Access-Control-Allow-Origin for it: a browser's requirement \(CORS\), outside the document/,
      );
    }
  });
});
