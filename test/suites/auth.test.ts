// The auth suite passes the correct mock, a failing message never shows the key, and a missing
// prerequisite reports not-tested. That each check fails is proven by the fault catalogue
// (mock/core/faults/auth.ts, test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../mock/core/errors.js';
import { isCatalog } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { AUTH } from '../../suites/auth.js';
import { expectPassesCorrectMock, KEY, mockWith, runAgainstMock } from '../support/run.js';

const outcomes = (results: Awaited<ReturnType<typeof runAgainstMock>>) => Object.fromEntries([...results.values()].map((r) => [r.id, r.outcome]));

describe('auth suite', () => {
  it('passes the correct mock', async () => {
    await expectPassesCorrectMock(AUTH);
  });

  it('never shows the primary key in a failing message or evidence', async () => {
    const results = await runAgainstMock(AUTH, { mock: createMock(undefined, { faults: ['auth-basic-echoed-plain-text'] }) });
    expect(results.get('auth.no-echo')?.outcome).toBe('fail');
    const shown = JSON.stringify([...results.values()]);
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain(encodeURIComponent(KEY));
    expect(shown).not.toContain(Buffer.from(`conformance:${KEY}`).toString('base64'));
  });

  it('never shows a near miss of the key either: each is most of the key', async () => {
    // The refusal repeats every Bearer key it was sent, near misses included.
    const results = await runAgainstMock(AUTH, { mock: createMock(undefined, { faults: ['auth-key-echoed'] }) });
    expect(results.get('auth.no-echo')?.outcome).toBe('fail');
    const shown = JSON.stringify([...results.values()]);
    for (const near of [KEY.slice(0, -1), KEY.slice(0, Math.ceil(KEY.length / 2) + 4), KEY.toUpperCase()]) expect(shown).not.toContain(near);
  });

  it('a key compared without regard to case fails the wrong-key checks on the case path only', async () => {
    const results = await runAgainstMock(AUTH, { mock: createMock(undefined, { faults: ['auth-key-case-insensitive'] }) });
    const r = results.get('auth.chat.wrong-key')!;
    expect(r.outcome).toBe('fail');
    expect(r.paths!.filter((p) => p.outcome === 'fail').map((p) => p.label)).toEqual(['json, case', 'stream, case']);
    expect(r.message).toContain('with the key in other letter case was not refused: it was served (status 200)');
  });

  it('the key elsewhere goes under every name of a place in one request, and a failure says which name the server read', async () => {
    const correct = await runAgainstMock(AUTH.filter((c) => c.id === 'auth.chat.key-elsewhere'));
    expect(correct.get('auth.chat.key-elsewhere')!.paths!.map((p) => `${p.label}=${p.outcome}`)).toEqual(['headers=pass', 'query=pass']);
    const results = await runAgainstMock(AUTH, { mock: createMock(undefined, { faults: ['auth-query-access-token-accepted'] }) });
    const r = results.get('auth.chat.key-elsewhere')!;
    expect(r.paths!.filter((p) => p.outcome === 'fail').map((p) => p.label)).toEqual(['query']);
    expect(r.message).toContain('access_token= query parameters and no Authorization was not refused: it was served (status 200) (sent under each name alone, it was served under access_token=)');
    // One request carried every name; only the failure sent them one by one.
    const urls = r.paths![1].evidence.map((e) => e.request.url);
    expect(urls[0]).toMatch(/\?key=.*&api_key=.*&api-key=.*&apikey=.*&subscription-key=.*&access_token=/);
    expect(JSON.stringify(r)).not.toContain(KEY);
  });

  it('a 404 or a 500 for a wrong key is no refusal', async () => {
    const results = await runAgainstMock(AUTH, { mock: createMock(undefined, { faults: ['auth-wrong-key-404'] }) });
    expect(results.get('auth.models.wrong-key')?.outcome).toBe('fail');
    expect(results.get('auth.models.wrong-key')?.message).toContain('status 404 says the route or model is missing, not that the request was refused');
  });

  it('key-scope is not-tested without a second key', async () => {
    const results = await runAgainstMock(AUTH, { target: { secondApiKey: undefined } });
    expect(results.get('auth.key-scope')?.outcome).toBe('not-tested');
    expect(results.get('auth.key-scope')?.message).toBe('[json] needs --second-api-key; [stream] needs --second-api-key');
  });

  it('key-scope is not-tested when both keys list the same models', async () => {
    const results = await runAgainstMock(AUTH, { target: { secondApiKey: KEY } });
    expect(results.get('auth.key-scope')?.outcome).toBe('not-tested');
    expect(results.get('auth.key-scope')?.message).toMatch(/same models/);
  });

  it('a catalog absent at the default site URL is not-tested, with the hint', async () => {
    const mock = mockWith({ reply: (r, req) => (isCatalog(req) ? errorReply(404, 'Not found.', 'invalid_request_error') : r) });
    const results = await runAgainstMock(AUTH, { mock, target: { siteUrlExplicit: false } });
    expect(results.get('auth.catalog-public')?.outcome).toBe('not-tested');
    expect(results.get('auth.catalog-public')?.message).toMatch(/--site-url/);
  });

  it('proves nothing (not-tested) when the primary key itself is refused', async () => {
    const results = await runAgainstMock(AUTH, { target: { apiKey: 'sk-not-a-key-of-the-mock-000000' } });
    const o = outcomes(results);
    for (const id of [
      'auth.chat.missing',
      'auth.models.missing',
      'auth.chat.malformed',
      'auth.models.malformed',
      'auth.chat.wrong-key',
      'auth.models.wrong-key',
      'auth.status-401',
      'auth.error-body',
      'auth.no-echo',
    ])
      expect(o[id], id).toBe('not-tested');
  });
});
