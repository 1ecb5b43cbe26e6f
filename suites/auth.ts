// Section 5: who may call. Requests without a valid Bearer key are refused, the model list is per
// key, and the catalog is public.
import { validator } from '../schemas/index.js';
import { baseline, catalog, catalogUrl, chat, describe, getCatalog, is2xx, listModels, modelIds, sayOk, type ApiCheck, type Auth } from './api.js';
import { combine, fail, notTested, pass, type Verdict } from './harness/check.js';
import { bodyJson, type Exchange } from './harness/exchanges.js';
import { basicCredential, containsKey } from './harness/redact.js';
import type { CheckContext } from './harness/runner.js';

/** Shaped like a real key, and no real key: a server that accepts it accepts any. */
const WRONG_KEY = 'sk-conformance-wrong-key-0000000000';
/** Auth comes before the model is looked at, so a refusal needs no real model. */
const PLACEHOLDER_MODEL = 'any-model';
/** Shorter keys turn up in any text by chance; looking for them would only give false alarms. */
const MIN_ECHO_KEY = 8;

type Operation = 'chat' | 'models';
const PATHS: Record<Operation, string> = { chat: 'POST /v1/chat/completions', models: 'GET /v1/models' };

/** One way of presenting (or not) credentials, and the secrets it carries that must not come back. */
interface Credential {
  label: string;
  auth(ctx: CheckContext): Auth;
  secrets(ctx: CheckContext): string[];
}

const MISSING: Credential[] = [{ label: 'no Authorization header', auth: () => 'none', secrets: () => [] }];
const MALFORMED: Credential[] = [
  {
    label: 'Basic credentials carrying the key',
    auth: (ctx) => ({ header: `Basic ${basicCredential(ctx.target.apiKey)}` }),
    secrets: (ctx) => [ctx.target.apiKey, basicCredential(ctx.target.apiKey)],
  },
  { label: '"Bearer" with no key', auth: () => ({ header: 'Bearer' }), secrets: () => [] },
];
const WRONG: Credential[] = [{ label: 'a wrong key', auth: () => ({ header: `Bearer ${WRONG_KEY}` }), secrets: () => [WRONG_KEY] }];
const ALL: Credential[] = [...MISSING, ...MALFORMED, ...WRONG];

/** The operation with the primary key, which must be served for a refusal to mean anything. */
async function control(ctx: CheckContext, op: Operation): Promise<{ body?: ReturnType<typeof sayOk>; problem?: string; notes: string[] }> {
  if (op === 'models') {
    const ex = await listModels(ctx);
    return is2xx(ex) ? { notes: [] } : { problem: `with the primary key, GET /v1/models answered ${describe(ex)}: a refusal without it proves nothing`, notes: [] };
  }
  const { model, problem } = await baseline(ctx);
  if (problem) return { problem: `${problem}: a refusal without it proves nothing`, notes: [] };
  return model ? { body: sayOk(model), notes: [] } : { body: sayOk(PLACEHOLDER_MODEL), notes: [`no model is listed; the chat requests named "${PLACEHOLDER_MODEL}"`] };
}

function send(ctx: CheckContext, op: Operation, cred: Credential, body: ReturnType<typeof sayOk> | undefined): Promise<Exchange> {
  return op === 'models' ? listModels(ctx, cred.auth(ctx), `model list with ${cred.label}`) : chat(ctx, body!, { auth: cred.auth(ctx), label: `chat with ${cred.label}` });
}

function refusedCheck(op: Operation, kind: string, creds: Credential[], title: string): ApiCheck {
  return {
    id: `auth.${op}.${kind}`,
    suite: 'auth',
    title,
    section: '5.1',
    level: 'must',
    async run(ctx) {
      const { body, problem, notes } = await control(ctx, op);
      if (problem) return notTested(problem);
      const verdicts = await Promise.all(
        creds.map(async (cred): Promise<Verdict> => {
          const ex = await send(ctx, op, cred, body);
          if (ex.status === undefined) return fail(`${PATHS[op]} with ${cred.label}: expected a refusal, got ${describe(ex)}`);
          if (is2xx(ex)) return fail(`${PATHS[op]} with ${cred.label} was served (${describe(ex)}); it requires Authorization: Bearer <API_KEY>`);
          return pass();
        }),
      );
      const v = combine(verdicts);
      return v.outcome === 'pass' ? pass(notes) : v;
    },
  };
}

interface Refusal {
  what: string;
  cred: Credential;
  ex: Exchange;
}

/** Every refusal the checks above got, for the checks on how a refusal looks. */
async function refusals(ctx: CheckContext): Promise<{ refusals: Refusal[]; problems: string[] }> {
  const out: Refusal[] = [];
  const problems: string[] = [];
  for (const op of ['chat', 'models'] as const) {
    const { body, problem } = await control(ctx, op);
    if (problem) {
      problems.push(problem);
      continue;
    }
    const exs = await Promise.all(ALL.map((cred) => send(ctx, op, cred, body)));
    ALL.forEach((cred, i) => {
      if (exs[i].status !== undefined && !is2xx(exs[i])) out.push({ what: `${PATHS[op]} with ${cred.label}`, cred, ex: exs[i] });
    });
  }
  return { refusals: out, problems };
}

/** The rule applied to every refusal; with none to look at, not-tested. */
async function onEachRefusal(ctx: CheckContext, rule: (r: Refusal) => string | undefined): Promise<Verdict> {
  const { refusals: all, problems } = await refusals(ctx);
  if (!all.length) return notTested(problems.length ? [...new Set(problems)].join('; ') : 'no request was refused');
  const wrong = all.map(rule).filter((m): m is string => m !== undefined);
  return wrong.length ? fail(wrong.join('; ')) : pass();
}

export const chatMissing = refusedCheck('chat', 'missing', MISSING, 'A chat completion without an Authorization header is refused');
export const modelsMissing = refusedCheck('models', 'missing', MISSING, 'The model list without an Authorization header is refused');
export const chatMalformed = refusedCheck('chat', 'malformed', MALFORMED, 'A chat completion whose Authorization is not Bearer <API_KEY> (Basic credentials, a bare "Bearer") is refused');
export const modelsMalformed = refusedCheck('models', 'malformed', MALFORMED, 'The model list whose Authorization is not Bearer <API_KEY> (Basic credentials, a bare "Bearer") is refused');
export const chatWrongKey = refusedCheck('chat', 'wrong-key', WRONG, 'A chat completion with a key that was never issued is refused');
export const modelsWrongKey = refusedCheck('models', 'wrong-key', WRONG, 'The model list with a key that was never issued is refused');

export const status401: ApiCheck = {
  id: 'auth.status-401',
  suite: 'auth',
  title: 'A refusal for missing, malformed or wrong credentials is 401 Unauthorized',
  section: '5',
  level: 'should',
  convention: 'The document does not show the refusal\'s status; the convention is 401 Unauthorized.',
  run: (ctx) => onEachRefusal(ctx, (r) => (r.ex.status === 401 ? undefined : `${r.what} answered ${r.ex.status}, not 401`)),
};

const validError = validator('error');

export const errorBody: ApiCheck = {
  id: 'auth.error-body',
  suite: 'auth',
  title: 'A refusal carries a JSON error body: {"error": {"message": ...}}',
  section: '5, 7',
  level: 'should',
  convention: 'The document does not show the error body; the convention is the OpenAI-compatible {"error": {"message", "type", "param", "code"}}.',
  run: (ctx) =>
    onEachRefusal(ctx, (r) => {
      const json = bodyJson(r.ex);
      if (!json.ok) return `${r.what}: ${json.error}`;
      const v = validError(json.value);
      return v.ok ? undefined : `${r.what}: the error body does not match the convention: ${v.errors.join(', ')}`;
    }),
};

export const noEcho: ApiCheck = {
  id: 'auth.no-echo',
  suite: 'auth',
  title: 'A refusal does not repeat the key that was sent, in its body or its headers',
  section: '5',
  level: 'should',
  convention: 'The document is silent; echoing a credential puts it in logs and error trackers, which every provider avoids.',
  run: (ctx) =>
    onEachRefusal(ctx, (r) => {
      // The raw bytes, before any redaction: evidence is redacted, the server's answer is not.
      const secrets = r.cred.secrets(ctx).filter((s) => s.length >= MIN_ECHO_KEY);
      const where = [
        ...(secrets.some((s) => containsKey(r.ex.body, s)) ? ['its body'] : []),
        ...Object.entries(r.ex.headers).filter(([, v]) => secrets.some((s) => containsKey(v, s))).map(([h]) => `header ${h}`),
      ];
      return where.length ? `${r.what}: the refusal repeats the key it was sent (in ${where.join(', ')})` : undefined;
    }),
};

export const keyScope: ApiCheck = {
  id: 'auth.key-scope',
  suite: 'auth',
  title: 'A key is refused a model that only another key\'s list holds',
  section: '5.2',
  level: 'must',
  async run(ctx) {
    if (!ctx.target.secondApiKey) return notTested('needs --second-api-key');
    const [primary, second] = await Promise.all([modelIds(ctx, 'primary'), modelIds(ctx, 'second')]);
    if (primary.problem) return notTested(`primary key: ${primary.problem}`);
    if (second.problem) return notTested(`second key: ${second.problem}`);
    const directions = [
      { model: primary.ids.find((id) => !second.ids.includes(id)), owner: 'primary', other: 'second' },
      { model: second.ids.find((id) => !primary.ids.includes(id)), owner: 'second', other: 'primary' },
    ] as const;
    const tried = directions.filter((d) => d.model !== undefined);
    if (!tried.length) return notTested('both keys list the same models: no model to ask for with the key that lacks it');
    const verdicts = await Promise.all(
      tried.map(async ({ model, owner, other }): Promise<Verdict> => {
        // A model its own key cannot use either would be refused for another reason.
        const own = await chat(ctx, sayOk(model!), { auth: owner, label: `chat with ${model} and the ${owner} key, which lists it` });
        if (!is2xx(own)) return notTested(`${model} is refused even with the ${owner} key, which lists it: ${describe(own)}`);
        const ex = await chat(ctx, sayOk(model!), { auth: other, label: `chat with ${model} and the ${other} key, which does not list it` });
        if (ex.status === undefined) return fail(`${model} with the ${other} key: expected a refusal, got ${describe(ex)}`);
        return is2xx(ex) ? fail(`the ${other} key was served ${model}, which only the ${owner} key's list holds (${describe(ex)}); the list holds the models a key can use`) : pass();
      }),
    );
    return combine(verdicts);
  },
};

const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key)$/i;

export const catalogPublic: ApiCheck = {
  id: 'auth.catalog-public',
  suite: 'auth',
  title: 'GET {site_url}/models.json answers without any credentials',
  section: '5.3',
  level: 'must',
  async run(ctx) {
    if (Object.keys(ctx.target.headers).some((h) => CREDENTIAL_HEADER.test(h)))
      return notTested('--header sends credentials with every request, the catalog\'s too');
    const info = await catalog(ctx);
    if (info.absentAtDefault) return notTested(info.problem!);
    const ex = await getCatalog(ctx);
    return is2xx(ex) ? pass() : fail(`GET ${catalogUrl(ctx)} without credentials answered ${describe(ex)}; the catalog needs no authentication`);
  },
};

export const AUTH: ApiCheck[] = [
  chatMissing,
  modelsMissing,
  chatMalformed,
  modelsMalformed,
  chatWrongKey,
  modelsWrongKey,
  status401,
  errorBody,
  noEcho,
  keyScope,
  catalogPublic,
];
