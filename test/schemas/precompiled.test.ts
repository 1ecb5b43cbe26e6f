// The validators the build compiles ahead (schemas/precompiled.ts): a built command compiles none of
// the document's own as it runs, and each gives what the same validator compiled at run time gives.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import * as source from '../../schemas/index.js';
import { KEY, SECOND_KEY } from '../support/run.js';
import { ONLY_A_HANG_MS } from '../support/machine.js';

const dist = (path: string) => import(pathToFileURL(new URL(`../../dist/${path}`, import.meta.url).pathname).href);

/** A reply of the mock to `body`, parsed. */
async function answer(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = createMock().handle({ method: 'POST', path: '/v1/chat/completions', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!('body' in reply) || typeof reply.body !== 'string') throw new Error('expected a JSON reply');
  return JSON.parse(reply.body) as Record<string, unknown>;
}

describe('the validators compiled at build time', () => {
  it('are in the build, and a whole run in a built process compiles none of the document’s at run time', async () => {
    expect(existsSync(new URL('../../dist/schemas/validators.cjs', import.meta.url))).toBe(true);
    const built = (await dist('schemas/index.js')) as typeof source;
    (await dist('schemas/precompiled.js')).usePrecompiled();
    const [{ runChecks }, { CHECKS }, { startMockServer }, { limitsFor }] = await Promise.all([dist('engine/runner.js'), dist('suites/index.js'), dist('mock/http.js'), dist('engine/http.js')]);
    const server = await startMockServer();
    try {
      const target = { baseUrl: server.url, siteUrl: server.url, siteUrlExplicit: true, apiKey: KEY, secondApiKey: SECOND_KEY, models: [], headers: {}, embeddedMock: false };
      const { results } = await runChecks(CHECKS, { target, limits: limitsFor(ONLY_A_HANG_MS), concurrency: 4, retry: { maxRetries: 1, maxWaitMs: 200 } });
      // The run judged (so it validated): responses, chunks, errors, models, the catalog, requests at the mock.
      expect(results.filter((r: { outcome: string }) => r.outcome === 'pass').length).toBeGreaterThan(50);
    } finally {
      await server.close();
    }
    expect(built.compiledAtRuntime()).toEqual([]);
  });

  it('give the verdicts and the words of the validators compiled at run time', async () => {
    const built = (await dist('schemas/index.js')) as typeof source;
    (await dist('schemas/precompiled.js')).usePrecompiled();
    const good = await answer({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 });
    const choice = (good.choices as Record<string, unknown>[])[0];
    const samples: [Parameters<typeof source.validator>[0], unknown][] = [
      ['response', good],
      ['response', { ...good, object: 'chat.completion.chunk', created: '1', choices: [{ ...choice, finish_reason: 'done' }] }],
      ['response', { ...good, usage: { prompt_tokens: -1 } }],
      ['response#/$defs/finishReason', 'eos'],
      ['chunk', { id: 1, object: 'chat.completion', choices: [{ index: 0, delta: { content: 5 } }] }],
      ['error', { error: { message: 3 } }],
      ['models', { object: 'list', data: [{ id: 'm' }, { id: 7, object: 'model' }] }],
      ['request', { model: '', messages: [{ role: 'robot' }], stop: ['a', 'b', 'c', 'd', 'e'] }],
    ];
    for (const [ref, data] of samples) {
      expect(built.validator(ref)(data), `${ref} on ${JSON.stringify(data).slice(0, 80)}`).toEqual(source.validator(ref)(data));
    }
    expect(built.validator('request', { first: true })({ model: 1, messages: 'x' })).toEqual(source.validator('request', { first: true })({ model: 1, messages: 'x' }));
    // Not vacuous: the samples hold verdicts of both kinds.
    expect(samples.filter(([ref, data]) => !source.validator(ref)(data).ok).length).toBeGreaterThan(5);
    // The sources have no file beside them: what they gave was compiled here, the build's was not.
    expect(source.compiledAtRuntime()).toContain('response');
    expect(built.compiledAtRuntime()).toEqual([]);
  });

  it('are not used when made of other schemas: a stale file is never trusted', async () => {
    const built = (await dist('schemas/index.js')) as typeof source;
    const { precompiled } = await dist('schemas/precompiled.js');
    expect(precompiled(built.madeOf())?.size).toBeGreaterThan(20);
    expect(precompiled(built.madeOf().replace('"maxItems":4', '"maxItems":5'))).toBeUndefined();
  });
});
