// Section 5: who may call. Requests without a valid Bearer key are refused on 4.1 (streamed and
// not) and 4.2, whatever the near miss; the model list is per key; the catalog is public. A refusal
// counts only where the same request with the right key was served.
import {
  catalog,
  catalogUnjudged,
  catalogUrl,
  cutByKit,
  cutShort,
  describe,
  getCatalog,
  is2xx,
  listModels,
  modelIds,
  sayOk,
  inSuite,
  shownBy,
  type ApiCheck,
  type CheckDef,
  type Auth,
  type ApiPath,
} from './api.js';
import { ask } from './ask.js';
import { controlUnserved, controlVerdict, cutOf, errorBodyProblem, onEachAnswer, refusalOf } from './answer.js';
import { combine, fail, notTested, pass, unjudgedBy, type Axis, type AxisPoint, type Verdict } from '../engine/check.js';
import { bodyJson, type Exchange } from '../engine/exchanges.js';
import { basicCredential, containsKey, KEY_VARIABLES } from '../engine/redact.js';
import type { CheckContext } from '../engine/runner.js';
import { baseline, BOTH_WAYS } from './paths.js';

/** Auth comes before the model is looked at, so a refusal needs no real model. */
const PLACEHOLDER_MODEL = 'any-model';
/** Shorter keys turn up in any text by chance; looking for them would only give false alarms. */
const MIN_ECHO_KEY = 8;

type Operation = 'chat' | 'models';
const ROUTES: Record<Operation, string> = { chat: 'POST /v1/chat/completions', models: 'GET /v1/models' };

/** The same character class, another character: a near miss a lax comparison might let through. */
function other(c: string): string {
  if (/[0-8]/.test(c)) return String(Number(c) + 1);
  if (c === '9') return '0';
  if (/[a-y]/i.test(c)) return String.fromCharCode(c.charCodeAt(0) + 1);
  if (/z/i.test(c)) return c === 'z' ? 'a' : 'A';
  return c === 'x' ? 'y' : 'x';
}

/** `other` as the shell does it, to the characters it reads (a line break kept, for $(...) to drop). */
const OTHER_SH = `tr '0-9a-zA-Z' '1-90b-zaB-ZA' | tr -c '0-9a-zA-Z\\n' x`;

/** Keys that differ from the real one in one way each; undefined where the key has no such form.
 * `shell`: the POSIX shell word that makes the same key from the variable `v` holding the real one,
 * so that a command replaying the request runs as printed and shows nothing of the key. */
export const NEAR_MISSES: Record<string, { label: string; make(key: string): string | undefined; shell(v: string, key: string): string }> = {
  case: {
    label: 'the key in other letter case',
    make: (k) => (/[a-z]/i.test(k) ? [...k].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('') : undefined),
    shell: (v) => `"$(printf %s "$${v}" | tr a-zA-Z A-Za-z)"`,
  },
  'last-char': { label: 'the key with its last character changed', make: (k) => k.slice(0, -1) + other(k.at(-1)!), shell: (v) => `"\${${v}%?}$(printf %s "\${${v}#"\${${v}%?}"}" | ${OTHER_SH})"` },
  'extra-char': { label: 'the key with one character added', make: (k) => `${k}${other(k.at(-1)!)}`, shell: (v) => `"$${v}$(printf %s "\${${v}#"\${${v}%?}"}" | ${OTHER_SH})"` },
  'missing-char': { label: 'the key without its last character', make: (k) => (k.length > 1 ? k.slice(0, -1) : undefined), shell: (v) => `"\${${v}%?}"` },
  'shared-prefix': {
    label: "the key's first half followed by other characters",
    make: (k) => (k.length > 3 ? k.slice(0, half(k)) + [...k.slice(half(k))].map(other).join('') : undefined),
    shell: (v, k) => `"$(printf %s "$${v}" | cut -c1-${half(k)})$(printf %s "$${v}" | cut -c${half(k) + 1}- | ${OTHER_SH})"`,
  },
};

const half = (k: string) => Math.ceil(k.length / 2);

/** Credentials that are not `Bearer <API_KEY>`, each carrying the key in some other way. */
const MALFORMED: Record<string, { label: string; header(key: string): string | string[] }> = {
  'no-scheme': { label: 'the key without the Bearer scheme', header: (k) => k },
  basic: { label: 'Basic credentials carrying the key', header: (k) => `Basic ${basicCredential(k)}` },
  token: { label: 'the key under the Token scheme', header: (k) => `Token ${k}` },
  bare: { label: '"Bearer" with no key', header: () => 'Bearer' },
  // Schemes API gateways use for keys (Elastic's ApiKey, fal's Key): none of them is Bearer.
  apikey: { label: 'the key under the ApiKey scheme', header: (k) => `ApiKey ${k}` },
  key: { label: 'the key under the Key scheme', header: (k) => `Key ${k}` },
  // A wrong key first: whichever one a server reads, a request that carries a wrong key is no
  // request with "the" key (RFC 9110, 5.3: Authorization is not a list).
  twice: { label: 'Authorization sent twice, a wrong key first', header: (k) => [`Bearer ${NEAR_MISSES['last-char'].make(k)}`, `Bearer ${k}`] },
};

/** With no Authorization at all, the key where other APIs' gateways and SDKs read it: in a header,
 * or in the query, under each name below. */
const KEY_HEADERS = [
  'x-api-key', // Anthropic's API, AWS API Gateway's API keys, API Umbrella (api.data.gov)
  'api-key', // Azure OpenAI
  'x-goog-api-key', // Gemini's API
  'apikey', // the default key name of Kong's key-auth plugin and of Apache APISIX's, in a header or the query
  'ocp-apim-subscription-key', // Azure API Management's subscription key
  'x-gravitee-api-key', // Gravitee API Management's api-key policy
];
const KEY_PARAMETERS = [
  'key', // Gemini's API and Google Cloud's API keys
  'api_key', // API Umbrella (api.data.gov)
  'api-key', // Gravitee API Management
  'apikey', // Kong, Apache APISIX
  'subscription-key', // Azure API Management
  'access_token', // RFC 6750, 2.3: an OAuth bearer token as a URI query parameter
];

/** Every name of a place in one request: a server that reads the key under any of them finds it
 * there and serves the request, one that keeps 5.1 refuses it whatever else it carries, so one
 * request per route proves what six would. A server that serves it is then asked the names one by one
 * (sent only then), so its failure says which it reads. */
const ELSEWHERE: Record<string, { label: string; place: 'header' | 'query'; names: string[] }> = {
  headers: { label: `the key in ${KEY_HEADERS.join(', ')} headers and no Authorization`, place: 'header', names: KEY_HEADERS },
  query: { label: `the key as ${KEY_PARAMETERS.map((n) => `${n}=`).join(', ')} query parameters and no Authorization`, place: 'query', names: KEY_PARAMETERS },
};

/** The key under some names of a place, and no Authorization. */
const keyUnder = (place: 'header' | 'query', names: readonly string[], key: string): Auth => ({
  elsewhere: place === 'header' ? { headers: names.map((n) => [n, key]) } : { query: names.map((n) => [n, key]) },
});

const axis = (forms: Record<string, { label: string }>): AxisPoint[] => Object.keys(forms).map((value) => ({ value, label: value }));

/** One way of presenting (or not) credentials: the header, and the secrets it carries that must not come back. */
interface Credential {
  label: string;
  auth: Auth;
  secrets: string[];
}

type Kind = 'missing' | 'malformed' | 'wrong-key' | 'key-elsewhere';

function credential(ctx: CheckContext, kind: Kind, form?: string): Credential | undefined {
  const key = ctx.target.apiKey;
  if (kind === 'missing') return { label: 'no Authorization header', auth: 'none', secrets: [] };
  if (kind === 'key-elsewhere') {
    const { label, place, names } = ELSEWHERE[form!];
    return { label, auth: keyUnder(place, names, key), secrets: [key] };
  }
  if (kind === 'malformed') {
    const m = MALFORMED[form!];
    const header = m.header(key);
    const wrong = NEAR_MISSES['last-char'].make(key)!;
    if (form === 'twice') ctx.secret(wrong, NEAR_MISSES['last-char'].shell(KEY_VARIABLES.apiKey, key));
    return { label: m.label, auth: { header }, secrets: form === 'bare' ? [] : [key, basicCredential(key), wrong] };
  }
  const made = NEAR_MISSES[form!].make(key);
  if (made === undefined || made === key) return undefined;
  // A near miss is most of the key: it is redacted like the key, and made from it by a replaying command.
  ctx.secret(made, NEAR_MISSES[form!].shell(KEY_VARIABLES.apiKey, key));
  return { label: NEAR_MISSES[form!].label, auth: { header: `Bearer ${made}` }, secrets: [made] };
}

/** The request with the primary key on the same route and path, which must be served for a refusal to
 * mean anything; with it, the body the refused requests repeat. */
async function control(ctx: CheckContext, op: Operation, path: ApiPath): Promise<{ body?: ReturnType<typeof sayOk>; blocked?: Verdict; notes: string[] }> {
  if (op === 'models') {
    const ex = await listModels(ctx);
    const cut = cutOf(ex);
    if (cut) return { blocked: cut, notes: [] };
    return is2xx(ex) && bodyJson(ex).ok
      ? { notes: [] }
      : { blocked: notTested(`with the primary key, GET /v1/models answered ${describe(ex)}: a refusal without it proves nothing`, 'models.list-shape'), notes: [] };
  }
  const { model, problem, owner, unjudged } = await baseline(ctx);
  const unproven = `${problem}: a refusal without it proves nothing`;
  if (problem) return { blocked: unjudged ? unjudgedBy(unjudged, unproven) : notTested(unproven, owner), notes: [] };
  if (!model) return { body: sayOk(PLACEHOLDER_MODEL), notes: [`no model is listed; the chat requests named "${PLACEHOLDER_MODEL}"`] };
  // Served is all a control asks: a broken field of its answer is its owner's, and must not hide a refusal.
  const blocked = await controlUnserved(ctx, path, model, (why) => `with the primary key, the same request was not served (${why}): a refusal without it proves nothing`);
  return blocked ? { blocked, notes: [] } : { body: sayOk(model), notes: [] };
}

function send(ctx: CheckContext, op: Operation, path: ApiPath, cred: Credential, body: ReturnType<typeof sayOk> | undefined): Promise<Exchange> {
  return op === 'models' ? listModels(ctx, cred.auth, `model list with ${cred.label}`) : ask(ctx, path, body!, `chat with ${cred.label}`, { auth: cred.auth });
}

/** The chat paths a kind of credential is tried on: the key elsewhere is a gateway's reading of the
 * request, the same streamed or not, so its requests go on the JSON path only. */
const chatPaths = (kind: Kind): Record<string, readonly AxisPoint[]> => (kind === 'key-elsewhere' ? {} : BOTH_WAYS);

/** The one form of each kind also sent streamed: a server that checks keys otherwise when it
 * streams is caught by any of them, and the others would each cost a request for the same proof. */
const STREAMED_FORM: Partial<Record<Kind, string>> = { malformed: 'token', 'wrong-key': 'case' };

/** The forms of a kind on a path: all of them, or streamed, the one of STREAMED_FORM. */
const formsOn =
  (kind: Kind, forms: AxisPoint[]): Axis<CheckContext> =>
  async (_ctx, path) => ({ points: path.stream ? forms.filter((f) => f.value === STREAMED_FORM[kind]) : forms });

/** The request each route's refusals repeat, once it was served with the key. */
const CONTROL: Record<Operation, string> = { chat: '"Say OK." to the first model under test', models: 'GET /v1/models' };

/** What each kind of credential is, and what a server that breaks 5.1 that way does with it. */
const KIND_AUDITS: Record<Kind, [string, string]> = {
  missing: ['with no Authorization header', 'a server that serves callers without credentials answers it 2xx'],
  malformed: [
    'with the key in an Authorization that is not Bearer <key> (no scheme, Basic, Token, ApiKey, Key, a bare "Bearer", the header twice with a wrong key first)',
    'a server that takes the key under any scheme, or reads only the last of two headers, serves one of them',
  ],
  'key-elsewhere': [
    `with no Authorization and the key where other LLM APIs and API gateways read it, in one request under every header name (${KEY_HEADERS.join(', ')}) and in another under every query parameter (${KEY_PARAMETERS.join(', ')}), judged only where the request with no credential at all is refused`,
    'a server that reads the key under any one of those names serves it (and is then asked each name alone, to say which)',
  ],
  'wrong-key': [
    'with near misses of the key (its case changed, its last character changed, one added, one removed, its first half with other characters)',
    'a server that compares keys loosely (without case, by prefix) serves one of them',
  ],
};

/** The faults that show each kind of refusal failing, on each route. */
const KIND_FAULTS: Record<Kind, Record<Operation, string[]>> = {
  missing: { chat: ['auth-chat-no-auth'], models: ['auth-models-no-auth'] },
  malformed: { chat: ['auth-any-scheme-accepted', 'auth-basic-accepted', 'auth-chat-bare-bearer-accepted'], models: ['auth-any-scheme-accepted', 'auth-basic-accepted'] },
  'key-elsewhere': {
    chat: ['auth-x-api-key-accepted', 'auth-api-key-header-accepted', 'auth-query-api-key-accepted', 'auth-query-access-token-accepted'],
    models: ['auth-x-api-key-accepted', 'auth-query-key-accepted', 'auth-query-api-key-accepted', 'auth-apim-subscription-key-accepted'],
  },
  'wrong-key': { chat: ['auth-key-case-insensitive', 'auth-key-prefix-compare', 'auth-any-key-when-streamed'], models: ['auth-key-case-insensitive', 'auth-key-prefix-compare'] },
};

/** Which names of a place a server read the key under, once the request with all of them was served:
 * each sent alone. */
async function namesRead(ctx: CheckContext, op: Operation, path: ApiPath, { place, names }: (typeof ELSEWHERE)[string], body: ReturnType<typeof sayOk> | undefined): Promise<string> {
  const key = ctx.target.apiKey;
  const served = await Promise.all(
    names.map(async (name) => {
      const alone: Credential = { label: place === 'header' ? `the key in the ${name} header alone` : `the key as ${name}= alone`, auth: keyUnder(place, [name], key), secrets: [key] };
      return refusalOf(await send(ctx, op, path, alone, body)).kind === 'served' ? name : undefined;
    }),
  );
  const read = served.filter((n): n is string => n !== undefined).map((n) => (place === 'header' ? n : `${n}=`));
  return read.length ? ` (sent under each name alone, it was served under ${read.join(', ')})` : ' (sent under each name alone, it was refused under every one)';
}

function refusedCheck(op: Operation, kind: Kind, title: string): CheckDef {
  const forms = kind === 'malformed' ? axis(MALFORMED) : kind === 'wrong-key' ? axis(NEAR_MISSES) : kind === 'key-elsewhere' ? axis(ELSEWHERE) : undefined;
  const streamed = op === 'chat' && 'stream' in chatPaths(kind) ? (STREAMED_FORM[kind] ? ` (and streamed, with ${STREAMED_FORM[kind]})` : ', streamed and not,') : '';
  return {
    id: `auth.${op}.${kind}`,
    title,
    section: '5.1',
    level: 'must',
    audit: `Sends ${CONTROL[op]}${streamed} ${KIND_AUDITS[kind][0]}, once the same request with Authorization: Bearer <key> was served: ${KIND_AUDITS[kind][1]}; ${shownBy(KIND_FAULTS[kind][op])}.`,
    paths: { ...(op === 'chat' ? chatPaths(kind) : {}), ...(forms ? { form: op === 'chat' ? formsOn(kind, forms) : forms } : {}) },
    reads: [],
    async run(ctx, path) {
      const cred = credential(ctx, kind, path.form as string | undefined);
      if (!cred) return notTested(`the key has no such form (${String(path.form)})`);
      const { body, blocked, notes } = await control(ctx, op, path);
      if (blocked) return blocked;
      if (kind === 'key-elsewhere') {
        // The key elsewhere proves something only where no credential at all is refused: a server
        // that serves anyone is auth.<op>.missing's to fail, once.
        const none = await send(ctx, op, { stream: false }, credential(ctx, 'missing')!, body);
        const bare = refusalOf(none);
        if (bare.kind === 'cut') return cutOf(none)!;
        if (bare.kind !== 'refused') return notTested(`a request with no credential at all was not refused either (${bare.why}): see auth.${op}.missing`, `auth.${op}.missing`);
      }
      const ex = await send(ctx, op, path, cred, body);
      ctx.cite(ex);
      const r = refusalOf(ex);
      if (r.kind === 'refused') return pass(notes);
      if (r.kind === 'cut') return cutOf(ex)!;
      const which = kind === 'key-elsewhere' && r.kind === 'served' ? await namesRead(ctx, op, path, ELSEWHERE[path.form as string], body) : '';
      return fail(`${ROUTES[op]} with ${cred.label} was not refused: ${r.why}${which}; it requires Authorization: Bearer <API_KEY>`);
    },
  };
}

export const chatMissing = refusedCheck('chat', 'missing', 'A chat completion without an Authorization header is refused');
export const modelsMissing = refusedCheck('models', 'missing', 'The model list without an Authorization header is refused');
export const chatMalformed = refusedCheck(
  'chat',
  'malformed',
  'A chat completion whose Authorization is not Bearer <API_KEY> (no scheme, Basic, Token, ApiKey, Key, a bare "Bearer", the header twice) is refused',
);
export const modelsMalformed = refusedCheck(
  'models',
  'malformed',
  'The model list whose Authorization is not Bearer <API_KEY> (no scheme, Basic, Token, ApiKey, Key, a bare "Bearer", the header twice) is refused',
);
export const chatKeyElsewhere = refusedCheck(
  'chat',
  'key-elsewhere',
  'A chat completion with no Authorization, the key in a header or a query parameter where other APIs and gateways read it (x-api-key, api-key, apikey, key=, api_key=, access_token=...), is refused',
);
export const modelsKeyElsewhere = refusedCheck(
  'models',
  'key-elsewhere',
  'The model list with no Authorization, the key in a header or a query parameter where other APIs and gateways read it (x-api-key, api-key, apikey, key=, api_key=, access_token=...), is refused',
);
export const chatWrongKey = refusedCheck('chat', 'wrong-key', 'A chat completion with a near miss of the key (its case, one character changed, added or removed, a shared prefix) is refused');
export const modelsWrongKey = refusedCheck('models', 'wrong-key', 'The model list with a near miss of the key (its case, one character changed, added or removed, a shared prefix) is refused');

interface Refusal {
  what: string;
  cred: Credential;
  ex: Exchange;
}

/** Every refusal the checks above got, for the checks on how a refusal looks. */
async function refusals(ctx: CheckContext): Promise<{ refusals: Refusal[]; problems: string[] }> {
  const out: Refusal[] = [];
  const problems: string[] = [];
  const tried: { op: Operation; path: ApiPath; cred?: Credential }[] = [];
  for (const [kind, forms] of [
    ['missing', ['']],
    ['malformed', Object.keys(MALFORMED)],
    ['wrong-key', Object.keys(NEAR_MISSES)],
    ['key-elsewhere', Object.keys(ELSEWHERE)],
  ] as const)
    for (const form of forms) {
      const cred = credential(ctx, kind, form || undefined);
      const streamedToo = kind === 'missing' || form === STREAMED_FORM[kind];
      for (const stream of streamedToo ? [false, true] : [false]) tried.push({ op: 'chat', path: kind === 'key-elsewhere' ? {} : { stream }, cred });
      tried.push({ op: 'models', path: {}, cred });
    }
  await Promise.all(
    tried.map(async ({ op, path, cred }) => {
      if (!cred) return;
      const { body, blocked } = await control(ctx, op, path);
      if (blocked) return void problems.push(blocked.message ?? blocked.outcome);
      const ex = await send(ctx, op, path, cred, body);
      if (refusalOf(ex).kind === 'refused') out.push({ what: `${ROUTES[op]}${path.stream ? ' (streamed)' : ''} with ${cred.label}`, cred, ex });
    }),
  );
  return { refusals: out, problems };
}

/** The rule applied to every refusal; with none to look at, not-tested. A rule that reads the body
 * reads only the refusals the kit did not cut at its own limit (`whole`). */
async function onEachRefusal(ctx: CheckContext, rule: (r: Refusal) => string | undefined, whole = false): Promise<Verdict> {
  const { refusals: all, problems } = await refusals(ctx);
  const read = whole ? all.filter((r) => !cutByKit(r.ex)) : all;
  const cut = all.filter((r) => !read.includes(r)).map((r) => `${r.what}: ${cutByKit(r.ex)}`);
  return onEachAnswer(read, [...problems, ...cut], 'no request was refused', rule);
}

export const status401: CheckDef = {
  id: 'auth.status-401',
  title: 'A refusal for missing, malformed or wrong credentials is 401 Unauthorized',
  section: '5',
  level: 'should',
  audit: 'Reads every refusal the credential checks got, on both routes and paths: a server that refuses missing or wrong credentials with 403 (or 400) fails; shown by fault auth-refusal-403.',
  convention: "The document does not show the refusal's status; the convention is 401 Unauthorized.",
  run: (ctx) => onEachRefusal(ctx, (r) => (r.ex.status === 401 ? undefined : `${r.what} answered ${r.ex.status}, not 401`)),
};

export const errorBody: CheckDef = {
  id: 'auth.error-body',
  title: 'A refusal carries a JSON error body: {"error": {"message": ...}}',
  section: '5, 7',
  level: 'should',
  audit: 'Reads every refusal the credential checks got: a refusal in plain text, or a JSON error without error.message, fails; shown by faults auth-refusal-plain-text and auth-refusal-no-message.',
  convention: 'The document does not show the error body; the convention is the OpenAI-compatible {"error": {"message", "type", "param", "code"}}.',
  run: (ctx) =>
    onEachRefusal(
      ctx,
      (r) => {
        const problem = errorBodyProblem(r.ex);
        return problem && `${r.what}: ${problem}`;
      },
      true,
    ),
};

export const noEcho: CheckDef = {
  id: 'auth.no-echo',
  title: 'A refusal does not repeat the key that was sent, in its body or its headers',
  section: '5',
  level: 'should',
  audit:
    'Searches the raw body and headers of every refusal for the key, near miss or Basic password it was sent: a server that repeats it ("Incorrect API key provided: sk-...") fails; shown by faults auth-key-echoed, auth-basic-password-echoed and auth-basic-echoed-in-header.',
  convention: 'The document is silent; echoing a credential puts it in logs and error trackers, which every provider avoids.',
  run: (ctx) =>
    onEachRefusal(ctx, (r) => {
      // The raw bytes, before any redaction: evidence is redacted, the server's answer is not.
      const secrets = r.cred.secrets.filter((s) => s.length >= MIN_ECHO_KEY);
      const where = [
        ...(secrets.some((s) => containsKey(r.ex.body, s)) ? ['its body'] : []),
        ...Object.entries(r.ex.headers)
          .filter(([, v]) => secrets.some((s) => containsKey(v, s)))
          .map(([h]) => `header ${h}`),
      ];
      return where.length ? `${r.what}: the refusal repeats the key it was sent (in ${where.join(', ')})` : undefined;
    }),
};

export const keyScope: CheckDef = {
  id: 'auth.key-scope',
  title: "A key is refused a model that only another key's list holds",
  section: '5.2',
  level: 'must',
  audit:
    'With --second-api-key, asks each key, streamed and not, for a model only the other key lists, once that model was served to the key that lists it: a server that scopes the model list but not the chat completion (or only one path) serves it; shown by faults auth-key-scope-ignored and auth-key-scope-ignored-streamed.',
  paths: BOTH_WAYS,
  async run(ctx, path) {
    if (!ctx.target.secondApiKey) return notTested('needs --second-api-key');
    const [primary, second] = await Promise.all([modelIds(ctx, 'primary'), modelIds(ctx, 'second')]);
    // An unreadable list is models.list-shape's failure (it reads the primary key's).
    if (primary.problem) return notTested(`primary key: ${primary.problem}`, primary.cut ? undefined : 'models.list-shape');
    if (second.problem) return notTested(`second key: ${second.problem}`);
    const directions = [
      { model: primary.ids.find((id) => !second.ids.includes(id)), owner: 'primary', other: 'second' },
      { model: second.ids.find((id) => !primary.ids.includes(id)), owner: 'second', other: 'primary' },
    ] as const;
    const tried = directions.filter((d) => d.model !== undefined);
    if (!tried.length) return notTested('both keys list the same models: no model to ask for with the key that lacks it');
    const verdicts = await Promise.all(
      tried.map(async ({ model, owner, other: lacking }): Promise<Verdict> => {
        // A model its own key cannot use either would be refused for another reason.
        const own = controlVerdict(
          await ask(ctx, path, sayOk(model!), `chat with ${model} and the ${owner} key, which lists it`, { auth: owner }),
          !!path.stream,
          (why) => `the control failed: ${model} with the ${owner} key was not served (${why})`,
        );
        if (own) return own;
        const asked = await ask(ctx, path, sayOk(model!), `chat with ${model} and the ${lacking} key, which does not list it`, { auth: lacking });
        ctx.cite(asked);
        const r = refusalOf(asked, { notFoundRefuses: true });
        if (r.kind === 'refused') return pass();
        if (r.kind === 'cut') return cutOf(asked)!;
        return fail(`the ${lacking} key asking for ${model}, which only the ${owner} key's list holds, was not refused: ${r.why}; the list holds the models a key can use`);
      }),
    );
    return combine(verdicts);
  },
};

const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key)$/i;

export const catalogPublic: CheckDef = {
  id: 'auth.catalog-public',
  title: 'GET {site_url}/models.json answers without any credentials',
  section: '5.3',
  level: 'must',
  audit:
    'GETs the catalog with no credential (not-tested when --header sends one with every request): a server that puts it behind auth, or answers 200 with no JSON document, fails; shown by faults auth-catalog-behind-auth and catalog-not-json.',
  async run(ctx) {
    if (Object.keys(ctx.target.headers).some((h) => CREDENTIAL_HEADER.test(h))) return notTested("--header sends credentials with every request, the catalog's too");
    const info = await catalog(ctx);
    if (info.notTested) return catalogUnjudged(info);
    const ex = await getCatalog(ctx);
    if (!is2xx(ex)) return fail(`GET ${catalogUrl(ctx)} without credentials answered ${describe(ex)}; the catalog needs no authentication`);
    // A status alone proves nothing: the document must come whole (its shape is the catalog suite's).
    const json = bodyJson(ex);
    const problem = cutShort(ex) ?? (json.ok ? undefined : json.error);
    return problem ? fail(`GET ${catalogUrl(ctx)} without credentials answered ${describe(ex)} but no JSON document: ${problem}`) : pass();
  },
};

export const AUTH: ApiCheck[] = inSuite('auth', [
  chatMissing,
  modelsMissing,
  chatMalformed,
  modelsMalformed,
  chatKeyElsewhere,
  modelsKeyElsewhere,
  chatWrongKey,
  modelsWrongKey,
  status401,
  errorBody,
  noEcho,
  keyScope,
  catalogPublic,
]);
