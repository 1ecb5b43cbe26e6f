// The mock stays a reference server whatever its replies hold: every check of the kit passes with
// each content profile, with streams cut inside characters (the kit's SSE reader joins the pieces)
// or inside fences, chosen per request (the header the kit sends with --header) or configured.
import { describe, expect, it } from 'vitest';
import { PROFILE_NAMES } from '../../mock/core/content/profiles.js';
import { createMock } from '../../mock/core/handle.js';
import { CHECKS } from '../../suites/index.js';
import { notPassing, runAgainstMock } from '../support/run.js';
import { withConfig } from './helpers.js';

const HEADERS = [...PROFILE_NAMES, 'unicode; split=bytes', 'markdown; split=fence'];

describe.concurrent('every check of the kit passes against the mock', () => {
  it.each(HEADERS)('with x-mock-content: %s', async (content) => {
    const results = await runAgainstMock(CHECKS, { target: { headers: { 'x-mock-content': content } } });
    expect(notPassing(results)).toEqual([]);
  });

  it("with the configuration's content: code for every model, unicode with split=bytes for one, in chunks of 3 tokens", async () => {
    const base = withConfig({});
    const config = withConfig({
      content: 'code',
      timing: { chunk_tokens: 3 },
      models: base.models.map((m) => (m.id === 'mock-reason-1' ? { ...m, content: { profile: 'unicode', split: 'bytes' } } : m)),
    });
    const results = await runAgainstMock(CHECKS, { mock: createMock(config) });
    expect(notPassing(results)).toEqual([]);
  });
});
