// The auth suite passes the correct mock, each check fails against a mock broken for it, and a
// missing prerequisite reports not-tested.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { errorReply } from '../../mock/core/errors.js';
import type { Fault } from '../../mock/core/faults/index.js';
import { isCatalog, isChat, isModels, requestJson, withHeader, withJson } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { isRaw, isStream, type MockReply, type MockRequest } from '../../mock/core/types.js';
import { AUTH } from '../../suites/auth.js';
import { KEY, notPassing, runAgainstMock } from '../support/run.js';

const KEYS = new Map(DEFAULT_CONFIG.keys.map((k) => [k.key, k]));
const bearerKey = (req: MockRequest) => /^Bearer +(\S+)/.exec(req.headers.authorization ?? '')?.[1];
const basicPassword = (req: MockRequest) => {
  const m = /^Basic +(\S+)/.exec(req.headers.authorization ?? '');
  return m ? Buffer.from(m[1], 'base64').toString('utf8').split(':').slice(1).join(':') : undefined;
};
const refused = (r: MockReply) => !isRaw(r) && r.status === 401;
const withBodyText = (r: MockReply, edit: (body: string) => string): MockReply =>
  isRaw(r) || isStream(r) ? r : { ...r, body: edit(typeof r.body === 'string' ? r.body : Buffer.from(r.body).toString('utf8')) };

/** A broken mock: one deliberate deviation, and the checks of this suite it must make fail. */
const cases: { name: string; fault: Omit<Fault, 'name' | 'description' | 'fails'>; fails: string[] }[] = [
  {
    name: 'chat served without an Authorization header',
    fault: { request: (req) => (isChat(req) && !req.headers.authorization ? withHeader(req, 'authorization', `Bearer ${KEY}`) : req) },
    fails: ['auth.chat.missing'],
  },
  {
    name: 'model list served without an Authorization header',
    fault: { request: (req) => (isModels(req) && !req.headers.authorization ? withHeader(req, 'authorization', `Bearer ${KEY}`) : req) },
    fails: ['auth.models.missing'],
  },
  {
    name: 'Basic credentials accepted when the password is a key',
    fault: { request: (req) => (KEYS.has(basicPassword(req) ?? '') ? withHeader(req, 'authorization', `Bearer ${basicPassword(req)}`) : req) },
    fails: ['auth.chat.malformed', 'auth.models.malformed'],
  },
  {
    name: 'a bare "Bearer" served on chat',
    fault: { request: (req) => (isChat(req) && req.headers.authorization === 'Bearer' ? withHeader(req, 'authorization', `Bearer ${KEY}`) : req) },
    fails: ['auth.chat.malformed'],
  },
  {
    name: 'any Bearer key accepted',
    fault: { request: (req) => (bearerKey(req) && !KEYS.has(bearerKey(req)!) ? withHeader(req, 'authorization', `Bearer ${KEY}`) : req) },
    fails: ['auth.chat.wrong-key', 'auth.models.wrong-key'],
  },
  {
    name: 'refusals are 403',
    fault: { reply: (r) => (refused(r) ? { ...r, status: 403 } : r) as MockReply },
    fails: ['auth.status-401'],
  },
  {
    name: 'refusals are plain text',
    fault: { reply: (r) => (refused(r) ? { status: 401, headers: { 'content-type': 'text/plain' }, body: 'Unauthorized' } : r) },
    fails: ['auth.error-body'],
  },
  {
    name: 'refusals lack error.message',
    fault: { reply: (r) => (refused(r) ? withJson(r, (b) => void delete b.error.message) : r) },
    fails: ['auth.error-body'],
  },
  {
    name: 'a wrong key echoed in the error message',
    fault: { reply: (r, req) => (refused(r) && bearerKey(req) ? withJson(r, (b) => void (b.error.message = `Incorrect API key provided: ${bearerKey(req)}`)) : r) },
    fails: ['auth.no-echo'],
  },
  {
    name: 'Basic credentials echoed in a header',
    fault: { reply: (r, req) => (refused(r) && req.headers.authorization?.startsWith('Basic') && !isRaw(r) ? { ...r, headers: { ...r.headers, 'x-received-auth': req.headers.authorization } } : r) },
    fails: ['auth.no-echo'],
  },
  {
    name: 'the Basic password echoed in the error message',
    fault: { reply: (r, req) => (refused(r) && basicPassword(req) ? withJson(r, (b) => void (b.error.message = `No user for password ${basicPassword(req)}`)) : r) },
    fails: ['auth.no-echo'],
  },
  {
    name: 'the Basic credentials echoed in a plain-text body',
    fault: { reply: (r, req) => (refused(r) && req.headers.authorization?.startsWith('Basic') ? withBodyText(r, () => `Unauthorized: ${req.headers.authorization}`) : r) },
    fails: ['auth.no-echo', 'auth.error-body'],
  },
  {
    name: 'the catalog behind auth',
    fault: { reply: (r, req) => (isCatalog(req) && !req.headers.authorization ? errorReply(401, 'Missing Authorization header.', 'invalid_request_error') : r) },
    fails: ['auth.catalog-public'],
  },
  {
    name: 'a key served a model that only the other key lists',
    fault: {
      request: (req) => {
        const model = requestJson(req)?.model;
        const owner = DEFAULT_CONFIG.keys.find((k) => k.models.includes(model as string));
        const key = KEYS.get(bearerKey(req) ?? '');
        return isChat(req) && owner && key && !key.models.includes(model as string) ? withHeader(req, 'authorization', `Bearer ${owner.key}`) : req;
      },
    },
    fails: ['auth.key-scope'],
  },
];

const brokenMock = (fault: (typeof cases)[number]['fault']) => createMock(undefined, { faults: [{ name: 'test', description: 'test', fails: [], ...fault }] });
const outcomes = (results: Awaited<ReturnType<typeof runAgainstMock>>) => Object.fromEntries([...results.values()].map((r) => [r.id, r.outcome]));

describe('auth suite', () => {
  it('passes the correct mock', async () => {
    const results = await runAgainstMock(AUTH);
    expect(notPassing(results)).toEqual([]);
    expect(results.size).toBe(AUTH.length);
  });

  it('has a broken mock for every check', () => {
    const killed = new Set(cases.flatMap((c) => c.fails));
    expect(AUTH.map((c) => c.id).filter((id) => !killed.has(id))).toEqual([]);
  });

  describe.concurrent.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    it(`fails exactly ${c.fails.join(', ')}`, async () => {
      const results = await runAgainstMock(AUTH, { mock: brokenMock(c.fault) });
      const failed = [...results.values()].filter((r) => r.outcome === 'fail');
      const detail = [...results.values()].filter((r) => r.outcome !== 'pass').map((r) => `${r.id}: ${r.outcome}: ${r.message}`).join('\n');
      expect(failed.map((r) => r.id).sort(), detail).toEqual([...c.fails].sort());
    });
  });

  it('never shows the primary key in a failing message or evidence', async () => {
    const c = cases.find((x) => x.name === 'the Basic credentials echoed in a plain-text body')!;
    const results = await runAgainstMock(AUTH, { mock: brokenMock(c.fault) });
    const shown = JSON.stringify([...results.values()]);
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain(encodeURIComponent(KEY));
    expect(shown).not.toContain(Buffer.from(`conformance:${KEY}`).toString('base64'));
  });

  it('key-scope is not-tested without a second key', async () => {
    const results = await runAgainstMock(AUTH, { target: { secondApiKey: undefined } });
    expect(results.get('auth.key-scope')).toMatchObject({ outcome: 'not-tested', message: 'needs --second-api-key' });
  });

  it('key-scope is not-tested when both keys list the same models', async () => {
    const results = await runAgainstMock(AUTH, { target: { secondApiKey: KEY } });
    expect(results.get('auth.key-scope')?.outcome).toBe('not-tested');
    expect(results.get('auth.key-scope')?.message).toMatch(/same models/);
  });

  it('a catalog absent at the default site URL is not-tested, with the hint', async () => {
    const mock = brokenMock({ reply: (r, req) => (isCatalog(req) ? errorReply(404, 'Not found.', 'invalid_request_error') : r) });
    const results = await runAgainstMock(AUTH, { mock, target: { siteUrlExplicit: false } });
    expect(results.get('auth.catalog-public')?.outcome).toBe('not-tested');
    expect(results.get('auth.catalog-public')?.message).toMatch(/--site-url/);
  });

  it('proves nothing (not-tested) when the primary key itself is refused', async () => {
    const results = await runAgainstMock(AUTH, { target: { apiKey: 'sk-not-a-key-of-the-mock-000000' } });
    const o = outcomes(results);
    for (const id of ['auth.chat.missing', 'auth.models.missing', 'auth.chat.malformed', 'auth.models.malformed', 'auth.chat.wrong-key', 'auth.models.wrong-key', 'auth.status-401', 'auth.error-body', 'auth.no-echo'])
      expect(o[id], id).toBe('not-tested');
  });
});
