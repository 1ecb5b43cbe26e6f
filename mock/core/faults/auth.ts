// Faults proving the checks of the auth suite (section 5): requests served without a valid Bearer
// key, refusals that look wrong or repeat the key, a key served another key's model, the catalog
// behind auth.
import { errorReply } from '../errors.js';
import { isRaw, isStream, type MockReply, type MockRequest } from '../types.js';
import type { Fault, FaultContext } from './fault.js';
import { bearerKey, isCatalog, isChat, isModels, keyOf, requestJson, withHeader, withJson } from './rewrite.js';
import { only } from './scope.js';
import { fromBase64 } from '../bytes.js';

/** The request as if it carried the primary key. */
const asPrimary = (req: MockRequest, ctx: FaultContext) => withHeader(req, 'authorization', `Bearer ${ctx.config.keys[0].key}`);
/** The password of Basic credentials (`user:password`, base64). */
const basicPassword = (req: MockRequest) => {
  const m = /^Basic +(\S+)/.exec(req.headers.authorization ?? '');
  return m ? fromBase64(m[1]).split(':').slice(1).join(':') : undefined;
};
const isBasic = (req: MockRequest) => /^Basic\b/.test(req.headers.authorization ?? '');
/** A refusal for credentials: only these are bent, every other answer stays as it is. */
const refused = (r: MockReply): r is Extract<MockReply, { body: unknown }> => !isRaw(r) && !isStream(r) && r.status === 401;
const withBodyText = (r: MockReply, text: string): MockReply => (refused(r) ? { ...r, body: text } : r);

/** Where a gateway of another API reads the key, with no Authorization: a header, or a query parameter. */
type Where = { header: string } | { query: string };

/** The key a request carries under one name elsewhere than in Authorization, as such a gateway reads it. */
const keyElsewhere = (req: MockRequest, where: Where): string | undefined => {
  if (req.headers.authorization) return undefined;
  if ('header' in where) return req.headers[where.header];
  return new URLSearchParams(req.path.split('?')[1] ?? '').get(where.query) ?? undefined;
};

/** Serves a request that carries the key there as if it carried it as Bearer, on the routes `on` takes (both by default). */
const takesKeyIn =
  (where: Where, on: (req: MockRequest) => boolean = (req) => isChat(req) || isModels(req)): Fault['request'] =>
  (req) => {
    const key = on(req) && keyElsewhere(req, where);
    return key ? withHeader(req, 'authorization', `Bearer ${key}`) : req;
  };

const BASE: Fault[] = [
  {
    name: 'auth-x-api-key-accepted',
    description: 'A request with no Authorization but the key in an x-api-key header (as Anthropic-style gateways take it) is served, on chat and the model list',
    fails: ['auth.chat.key-elsewhere', 'auth.models.key-elsewhere'],
    on: 'headers',
    request: takesKeyIn({ header: 'x-api-key' }),
  },
  {
    name: 'auth-api-key-header-accepted',
    description: 'A chat completion with no Authorization but the key in an api-key header (as Azure OpenAI takes it) is served',
    fails: ['auth.chat.key-elsewhere'],
    on: 'headers',
    request: takesKeyIn({ header: 'api-key' }, isChat),
  },
  {
    name: 'auth-apim-subscription-key-accepted',
    description: 'The model list with no Authorization but the key in an Ocp-Apim-Subscription-Key header (as Azure API Management takes a subscription key) is served',
    fails: ['auth.models.key-elsewhere'],
    on: 'headers',
    request: takesKeyIn({ header: 'ocp-apim-subscription-key' }, isModels),
  },
  {
    name: 'auth-query-key-accepted',
    description: "The model list with no Authorization but the key as a key= query parameter (as Gemini's API takes it) is served",
    fails: ['auth.models.key-elsewhere'],
    on: 'query',
    request: takesKeyIn({ query: 'key' }, isModels),
  },
  {
    name: 'auth-query-api-key-accepted',
    description: 'A request with no Authorization but the key as an api_key= query parameter (as API Umbrella takes it) is served, on chat and the model list',
    fails: ['auth.chat.key-elsewhere', 'auth.models.key-elsewhere'],
    on: 'query',
    request: takesKeyIn({ query: 'api_key' }),
  },
  {
    name: 'auth-query-access-token-accepted',
    description: 'A chat completion with no Authorization but the key as an access_token= query parameter (an OAuth bearer token in the URI, RFC 6750 2.3) is served',
    fails: ['auth.chat.key-elsewhere'],
    on: 'query',
    request: takesKeyIn({ query: 'access_token' }, isChat),
  },
  {
    name: 'auth-any-scheme-accepted',
    description: 'The key is taken under any scheme (ApiKey, Key, Token...), not only Bearer, on chat and the model list',
    fails: ['auth.chat.malformed', 'auth.models.malformed'],
    request: (req) => {
      const m = /^(?!Bearer\b|Basic\b)[A-Za-z-]+ +(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      return m && (isChat(req) || isModels(req)) ? withHeader(req, 'authorization', `Bearer ${m[1]}`) : req;
    },
  },
  {
    name: 'auth-chat-no-auth',
    description: 'A chat completion (4.1) without an Authorization header is served as if it carried the primary key',
    fails: ['auth.chat.missing'],
    request: (req, ctx) => (isChat(req) && !req.headers.authorization ? asPrimary(req, ctx) : req),
  },
  {
    name: 'auth-models-no-auth',
    description: "The model list (4.2) without an Authorization header is served, the primary key's",
    fails: ['auth.models.missing'],
    request: (req, ctx) => (isModels(req) && !req.headers.authorization ? asPrimary(req, ctx) : req),
  },
  {
    name: 'auth-basic-accepted',
    description: 'Basic credentials whose password is a key are accepted as that key, on chat and the model list',
    fails: ['auth.chat.malformed', 'auth.models.malformed'],
    request: (req, ctx) => {
      const password = basicPassword(req);
      return password && ctx.config.keys.some((k) => k.key === password) ? withHeader(req, 'authorization', `Bearer ${password}`) : req;
    },
  },
  {
    name: 'auth-chat-bare-bearer-accepted',
    description: 'A chat completion whose Authorization is a bare "Bearer", with no key, is served as the primary key',
    fails: ['auth.chat.malformed'],
    request: (req, ctx) => (isChat(req) && req.headers.authorization?.trim() === 'Bearer' ? asPrimary(req, ctx) : req),
  },
  {
    name: 'auth-any-key-accepted',
    description: 'Any Bearer key, even one never issued, is accepted as the primary key',
    fails: ['auth.chat.malformed', 'auth.models.malformed', 'auth.chat.wrong-key', 'auth.models.wrong-key'],
    request: (req, ctx) => (bearerKey(req) !== undefined && !keyOf(req, ctx.config) ? asPrimary(req, ctx) : req),
  },
  {
    name: 'auth-refusal-403',
    description: 'Refusals for missing, malformed or wrong credentials are 403 instead of 401',
    fails: ['auth.status-401'],
    reply: (r) => (refused(r) ? { ...r, status: 403 } : r),
  },
  {
    name: 'auth-refusal-plain-text',
    description: 'Refusals for credentials carry a plain-text body, "Unauthorized", instead of a JSON error',
    fails: ['auth.error-body'],
    reply: (r) => (refused(r) ? { status: 401, headers: { 'content-type': 'text/plain' }, body: 'Unauthorized' } : r),
  },
  {
    name: 'auth-refusal-no-message',
    description: 'Refusals for credentials carry a JSON error without error.message',
    fails: ['auth.error-body'],
    reply: (r) => (refused(r) ? withJson(r, (b) => void delete b.error.message) : r),
  },
  {
    name: 'auth-key-echoed',
    description: 'A refusal of a wrong Bearer key repeats the key in its error message',
    fails: ['auth.no-echo'],
    reply: (r, req) => {
      const key = bearerKey(req);
      return refused(r) && key ? withJson(r, (b) => void (b.error.message = `Incorrect API key provided: ${key}`)) : r;
    },
  },
  {
    name: 'auth-basic-echoed-in-header',
    description: 'A refusal of Basic credentials repeats them in a response header',
    fails: ['auth.no-echo'],
    reply: (r, req) => (refused(r) && isBasic(req) ? { ...r, headers: { ...r.headers, 'x-received-auth': req.headers.authorization! } } : r),
  },
  {
    name: 'auth-basic-password-echoed',
    description: 'A refusal of Basic credentials repeats their password (the key) in its error message',
    fails: ['auth.no-echo'],
    reply: (r, req) => {
      const password = basicPassword(req);
      return refused(r) && password ? withJson(r, (b) => void (b.error.message = `No user for password ${password}`)) : r;
    },
  },
  {
    name: 'auth-basic-echoed-plain-text',
    description: 'A refusal of Basic credentials is a plain-text body repeating the Authorization header',
    fails: ['auth.error-body', 'auth.no-echo'],
    reply: (r, req) => (isBasic(req) ? withBodyText(r, `Unauthorized: ${req.headers.authorization}`) : r),
  },
  {
    name: 'auth-catalog-behind-auth',
    description: 'The public catalog (4.3) refuses requests without an Authorization header with 401',
    // The catalog suite reads the catalog without credentials, as 4.3 allows: it finds it refused.
    fails: ['catalog.available', 'catalog.status-200', 'catalog.schema', 'auth.catalog-public'],
    reply: (r, req) => (isCatalog(req) && !req.headers.authorization ? errorReply(401, 'Missing Authorization header.', 'invalid_request_error', 'missing_api_key') : r),
  },
  {
    name: 'auth-key-scope-ignored',
    description: "A chat completion naming a model outside the key's list, but in another key's, is served anyway",
    fails: ['auth.key-scope'],
    request: (req, ctx) => {
      if (!isChat(req)) return req;
      const model = requestJson(req)?.model;
      const key = keyOf(req, ctx.config);
      if (typeof model !== 'string' || !key || key.models.includes(model)) return req;
      const owner = ctx.config.keys.find((k) => k.models.includes(model));
      return owner ? withHeader(req, 'authorization', `Bearer ${owner.key}`) : req;
    },
  },
];

const named = (name: string) => BASE.find((f) => f.name === name)!;

/** The configured key a Bearer credential names under a lax comparison, if any. */
const laxKey = (req: MockRequest, ctx: FaultContext, same: (given: string, key: string) => boolean) => {
  const given = bearerKey(req);
  return given === undefined || keyOf(req, ctx.config) ? undefined : ctx.config.keys.find((k) => same(given, k.key));
};
const asKey = (req: MockRequest, key: string) => withHeader(req, 'authorization', `Bearer ${key}`);

const NEW: Fault[] = [
  {
    name: 'auth-key-case-insensitive',
    description: 'Keys are compared without regard to letter case',
    fails: ['auth.chat.wrong-key', 'auth.models.wrong-key'],
    on: 'case',
    request: (req, ctx) => {
      const key = laxKey(req, ctx, (given, k) => given.toLowerCase() === k.toLowerCase());
      return key ? asKey(req, key.key) : req;
    },
  },
  {
    name: 'auth-key-prefix-compare',
    description: 'Only the first 16 characters of a key are compared',
    fails: ['auth.chat.malformed', 'auth.models.malformed', 'auth.chat.wrong-key', 'auth.models.wrong-key'],
    request: (req, ctx) => {
      const key = laxKey(req, ctx, (given, k) => given.slice(0, 16) === k.slice(0, 16));
      return key ? asKey(req, key.key) : req;
    },
  },
  {
    name: 'auth-any-key-when-streamed',
    description: 'A streamed chat completion accepts any Bearer key',
    fails: ['auth.chat.wrong-key'],
    on: 'stream',
    request: (req, ctx) => (isChat(req) && requestJson(req)?.stream === true && bearerKey(req) !== undefined && !keyOf(req, ctx.config) ? asPrimary(req, ctx) : req),
  },
  {
    name: 'auth-scheme-ignored',
    description: 'The key is accepted under any scheme or none (Authorization: KEY, Token KEY)',
    fails: ['auth.chat.malformed', 'auth.models.malformed'],
    request: (req, ctx) => {
      const m = /^(?:(\S+)\s+)?(\S+)\s*$/.exec(req.headers.authorization ?? '');
      const key = m && ctx.config.keys.find((k) => k.key === m[2]);
      return key && !/^bearer$/i.test(m?.[1] ?? '') ? asKey(req, key.key) : req;
    },
  },
  {
    name: 'auth-wrong-key-404',
    description: 'A key that was never issued is answered 404 instead of a refusal',
    fails: ['auth.chat.malformed', 'auth.models.malformed', 'auth.chat.wrong-key', 'auth.models.wrong-key'],
    reply: (r, req, ctx) => (bearerKey(req) !== undefined && !keyOf(req, ctx.config) && refused(r) ? errorReply(404, 'Not found', 'invalid_request_error') : r),
  },
];

export const AUTH_FAULTS: Fault[] = [...BASE, ...NEW, only(named('auth-key-scope-ignored'), { stream: true }, ['auth.key-scope'])];
