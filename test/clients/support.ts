// The client flows against a mock started on 127.0.0.1 for the test: every flow of every installed
// client on each model of the first key, the flows' own evidence redacted of the mock's keys.
import { CLIENTS } from '../../clients/index.js';
import { loadClients } from '../../clients/load.js';
import { runFlows } from '../../clients/run.js';
import { transportFor } from '../../clients/transport.js';
import { limitsFor } from '../../engine/http.js';
import { ONLY_A_HANG_MS, within } from '../support/machine.js';
import { redactorFor } from '../../engine/runner.js';
import type { FlowResult } from '../../report/clients.js';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';

export const KEY = DEFAULT_CONFIG.keys[0].key;
/** Every model the first key lists: the reasoning model, which spends tokens of max_tokens thinking, included. */
export const MODELS = DEFAULT_CONFIG.keys[0].models;

const loaded = loadClients(CLIENTS);

/** The clients the sweep runs: the browser client's flows rest on its Node twin's, which the sweep holds. */
export const NODE_CLIENTS = CLIENTS.filter((c) => c.name !== 'openai-browser').map((c) => c.name);

/** Every flow of every client against `mock`, on every model, over loopback HTTP (a content coding
 * is decoded, a reset is a reset, as a client meets them). */
export async function flowsAgainst(
  mock: Mock = createMock(),
  opts: { timeoutMs?: number; idleTimeoutMs?: number; concurrency?: number; clients?: readonly string[]; models?: readonly string[] } = {},
): Promise<FlowResult[]> {
  const server = await startMockServer({ mock });
  // A dispatcher of this mock's own, closed with it, as a run has: the global one outlived each mock,
  // pooling connections across mocks that may be given one port in turn (the sweep met a reset once,
  // on a machine at load 9).
  // The flows' own timeout bounds each request, as --timeout does in a run; a connection on a machine
  // busy with the suite's other files gets the time the machine's pace gives it.
  const transport = transportFor(undefined, { ...limitsFor(opts.timeoutMs ?? ONLY_A_HANG_MS, undefined, opts.idleTimeoutMs), connectTimeoutMs: within(10_000) });
  try {
    const { results } = await runFlows({
      baseUrl: server.url,
      apiKey: KEY,
      models: [...(opts.models ?? MODELS)],
      clients: (await loaded).loaded.filter((l) => !opts.clients || opts.clients.includes(l.client.name)),
      fetch: transport.fetch,
      timeoutMs: opts.timeoutMs ?? ONLY_A_HANG_MS,
      concurrency: opts.concurrency ?? 8,
      redactor: redactorFor({ apiKey: KEY, headers: {} }),
    });
    return results;
  } finally {
    await transport.close();
    await server.close();
  }
}

/** A line per flow that did not pass, for assertion messages. */
export const notPassing = (flows: readonly FlowResult[]) => flows.filter((f) => f.outcome !== 'pass').map((f) => `${f.id}: ${f.outcome}: ${f.message ?? ''}`);
