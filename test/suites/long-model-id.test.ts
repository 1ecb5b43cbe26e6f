// A listed model id longer than MODEL_ID_MAX is the kit's limit, as --max-body is: it is left out of
// every model the kit tries (so no request, path, label or memo carries it, and a run's memory no
// longer follows its length), the report says so, and the rules run on the other listed models, or
// are not-tested, saying why, when there is none. What a run then sends is held as a count: the
// largest request body the server received.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import type { MockConfig } from '../../mock/config/types.js';
import { createMock } from '../../mock/core/handle.js';
import { MODEL_ID_MAX } from '../../suites/api.js';
import { cli } from '../support/cli.js';
import { KEY, notPassing, rewrittenMock, SECOND_KEY } from '../support/run.js';
import { startMockServer } from '../../mock/http.js';
import { runSession } from '../../suites/session.js';

const LONG = `long-${'x'.repeat(64 * 1024)}`;

/** The default configuration with LONG listed first, to every key, or alone. */
function listing(alone: boolean): MockConfig {
  const long = { ...DEFAULT_CONFIG.models[0], id: LONG };
  return {
    ...DEFAULT_CONFIG,
    models: [long, ...DEFAULT_CONFIG.models],
    keys: DEFAULT_CONFIG.keys.map((k) => ({ ...k, models: alone ? [LONG] : [LONG, ...k.models] })),
  };
}

/** The models and chat suites against the mock of `config`, and the largest request body it received. */
async function run(config: MockConfig) {
  let largest = 0;
  const mock = rewrittenMock(
    (_req, reply) => reply,
    (req) => ((largest = Math.max(largest, req.body?.length ?? 0)), req),
    createMock(config),
  );
  const server = await startMockServer({ mock });
  try {
    const report = await runSession({ baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, suites: ['models', 'chat'] });
    return { report, results: new Map(report.results.map((r) => [String(r.id), r])), largest };
  } finally {
    await server.close();
  }
}

describe('a listed model id longer than the kit sends', () => {
  it('is left out: the rules run on the other listed models, no request carries it, and the report says so', async () => {
    const { report, results, largest } = await run(listing(false));
    expect(notPassing(results)).toEqual([]);
    expect(largest).toBeLessThan(MODEL_ID_MAX + 4_096);
    const said = (report.notes ?? []).join('\n');
    expect(said).toContain(`1 listed model id longer than ${MODEL_ID_MAX} characters, the most conformance sends as a model, left out: long-xxx`);
    expect(said).toContain(`(${LONG.length} characters)`);
    for (const r of results.values()) for (const p of r.paths ?? []) expect(JSON.stringify(p.path)).not.toContain('x'.repeat(1_000));
  });

  it('alone in the list: the chat rules are not-tested, saying why; none is failed for it', async () => {
    const { results, largest } = await run(listing(true));
    expect(largest).toBeLessThan(MODEL_ID_MAX + 4_096);
    const chat = results.get('chat.role.user')!;
    expect(chat.outcome).toBe('not-tested');
    expect(chat.message).toMatch(new RegExp(`no model id to send: 1 listed model id longer than ${MODEL_ID_MAX} characters.*; name a model with --model`));
    expect([...results.values()].filter((r) => r.outcome === 'fail').map((r) => `${r.id}: ${r.message}`)).toEqual([]);
  });

  it('given with --model: a usage error, in one line', async () => {
    const r = await cli(['run', '--suite', 'models', '--model', 'm'.repeat(MODEL_ID_MAX + 1)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`conformance: --model names an id of ${MODEL_ID_MAX + 1} characters; conformance sends ids of at most ${MODEL_ID_MAX}\n`);
  });
});
