// A load sweep against a mock started on 127.0.0.1 for the test: small steps and few requests, so
// that a sweep takes a few seconds; its limit one only a hang reaches (machine.ts).
import { createMock, type Mock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import type { RunReport } from '../../report/report.js';
import { runLoad, type LoadOptions } from '../../suites/load/session.js';
import { KEY, SECOND_KEY } from './run.js';
import { ONLY_A_HANG_MS } from './machine.js';

/** Each step sends every request of the mix (10) at least once after the first four, which begin
 * together: a fault past 2 in flight meets every kind at the step of 4. */
export const SMALL_SWEEP: LoadOptions = { concurrency: [1, 4], requests: 12, timeoutMs: ONLY_A_HANG_MS };

export async function loadAgainstMock(mock: Mock = createMock(), opts: LoadOptions = {}): Promise<RunReport> {
  const server = await startMockServer({ mock });
  try {
    return await runLoad({ baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, ...SMALL_SWEEP, ...opts });
  } finally {
    await server.close();
  }
}
