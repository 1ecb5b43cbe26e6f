// The full example configuration, scenarios and timing included, is still a reference server:
// every check of the kit passes against it, in strict mode.
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { loadConfigFile } from '../../mock/config/load.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { runSession } from '../../suites/session.js';
import { notPassing } from '../support/run.js';
import { ONLY_A_HANG_MS } from '../support/machine.js';

it('conformance run --strict against conformance mock --config examples/full.yaml passes every check', async () => {
  const config = loadConfigFile(fileURLToPath(new URL('../../examples/full.yaml', import.meta.url)));
  const server = await startMockServer({ mock: createMock(config) });
  try {
    const report = await runSession({ baseUrl: server.url, apiKey: config.keys[0].key, secondApiKey: config.keys[1].key, strict: true, requireComplete: true, timeoutMs: ONLY_A_HANG_MS });
    expect(notPassing(report.results)).toEqual([]);
    expect(report.exitCode).toBe(0);
  } finally {
    await server.close();
  }
});
