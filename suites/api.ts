// The API's requests, named once and shared by every suite, and the facts discovered from the
// target (model lists, the catalog) memoized for the run.
import { askedAgain, toBeRefused } from './cost.js';
import { unowned } from './fields.js';
import { bodyJson, bodySse, readOf, type Exchange } from '../engine/exchanges.js';
import { parseJson } from '../engine/json.js';
import type { SseParse } from '../engine/sse.js';
import { notTested, unjudgedBy, type PathValue, type Unjudged, type Verdict } from '../engine/check.js';
import type { CheckContext } from '../engine/runner.js';
import { KIT_LIMITS, type RequestSpec } from '../engine/http.js';

/** The point of a check's path, as the checks of the API read it. */
export interface ApiPath {
  /** Asked with stream: true. */
  stream?: boolean;
  /** The model the request names. */
  model?: string;
  [axis: string]: PathValue | undefined;
}

/** Whose credentials a request carries: an Authorization header (an array is sent once per value),
 * or, with no Authorization at all, the key in other headers or in the query, as other APIs' gateways
 * take it (each name and value in order). */
export type Auth = 'primary' | 'second' | 'none' | { header: string | string[] } | { elsewhere: { headers?: [string, string][]; query?: [string, string][] } };

function authHeaders(ctx: CheckContext, auth: Auth): Record<string, string | string[]> {
  if (auth === 'none') return {};
  if (auth === 'primary') return { authorization: `Bearer ${ctx.target.apiKey}` };
  if (auth === 'second') return { authorization: `Bearer ${ctx.target.secondApiKey ?? ''}` };
  if ('elsewhere' in auth) return Object.fromEntries(auth.elsewhere.headers ?? []);
  return { authorization: auth.header };
}

/** The query a credential adds to a route's path, if any. */
function withQuery(path: string, auth: Auth | undefined): string {
  const q = typeof auth === 'object' && 'elsewhere' in auth ? auth.elsewhere.query : undefined;
  return q?.length ? `${path}?${q.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')}` : path;
}

export const apiUrl = (ctx: CheckContext, path: string) => `${ctx.target.baseUrl}${path}`;
export const catalogUrl = (ctx: CheckContext) => `${ctx.target.siteUrl.replace(/\/+$/, '')}/models.json`;

export type ChatBody = Record<string, unknown>;

/** POST /v1/chat/completions with a JSON body (or a raw string, for malformed-body checks);
 * `repeat` sends it again rather than sharing the answer already had; `refused`: a server owes it a
 * refusal, so what it asks to generate is no cost of the run (cost.ts); `again`: sent again with less
 * to locate a refusal (ask.ts), which the run's cost counts apart. A request a server owes an answer
 * carries only fields of the registry (fields.ts), each with the check its refusal is charged to. */
export function chat(ctx: CheckContext, body: ChatBody | string, opts: { auth?: Auth; label?: string; repeat?: number; refused?: boolean; again?: boolean } = {}): Promise<Exchange> {
  if (!opts.refused && typeof body === 'object') {
    const stray = unowned(body);
    if (stray.length) throw new Error(`the kit sends ${stray.join(', ')} with no owner in suites/fields.ts: a refusal of it would be charged to no check`);
  }
  const spec = chatSpec(ctx, body, opts);
  return ctx.send(opts.refused ? toBeRefused(spec) : opts.again ? askedAgain(spec) : spec, opts.label ?? 'chat completion');
}

/** The request `chat` sends, unsent (a load sends it many times). */
export function chatSpec(ctx: CheckContext, body: ChatBody | string, opts: { auth?: Auth; repeat?: number } = {}): RequestSpec {
  return {
    method: 'POST',
    url: apiUrl(ctx, withQuery('/v1/chat/completions', opts.auth)),
    headers: { 'content-type': 'application/json', ...authHeaders(ctx, opts.auth ?? 'primary') },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(opts.repeat ? { repeat: opts.repeat } : {}),
  };
}

export function listModels(ctx: CheckContext, auth: Auth = 'primary', label = 'model list'): Promise<Exchange> {
  return ctx.send({ method: 'GET', url: apiUrl(ctx, withQuery('/v1/models', auth)), headers: authHeaders(ctx, auth) }, label);
}

export function getCatalog(ctx: CheckContext): Promise<Exchange> {
  return ctx.send({ method: 'GET', url: catalogUrl(ctx), headers: {} }, 'catalog');
}

/** Unix seconds stay below 1e11 until the year 5138 (milliseconds passed it in 1973), and a creation
 * time before 2000-01-01 is a clock or a unit gone wrong. */
export const isUnixSeconds = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 946_684_800 && (v as number) < 1e11;

/** How the fuzz session labels its requests: their answers are the fuzz properties' to judge (one
 * defect, one failure), not those of the rules that read every answer of the run. */
export const GENERATED_LABEL = 'fuzz #';
export const generated = (ex: Exchange) => ex.label.startsWith(GENERATED_LABEL);

export const is2xx = (ex: Exchange) => ex.status !== undefined && ex.status >= 200 && ex.status < 300;
export const is4xx = (ex: Exchange) => ex.status !== undefined && ex.status >= 400 && ex.status < 500;

/** How a request was kept from being served, when it was: the server turned it away (429, 503) or
 * gave no answer (a dropped connection, a 5xx), or the kit cut its answer at a limit of its own
 * (`cut`, cutByKit). Undefined for a refusal or a redirect (the request's, or the run's, to answer
 * for) and for a request the run itself stopped. */
export function serverKept(ex: Exchange): Exclude<Unjudged, 'flaky-owner'> | undefined {
  if (ex.status === 429 || ex.status === 503) return 'busy';
  if (ex.status !== undefined && ex.status >= 500) return 'unanswered';
  if (cutByKit(ex)) return 'cut';
  if (ex.status === undefined) return ex.error?.kind === 'stopped' ? undefined : 'unanswered';
  return undefined;
}

/** Why the kit, not the server, ended an answer: it cut it at a limit of its own (the idle limit,
 * --timeout, --max-body), with the option that lets it through; undefined for an answer that ended
 * otherwise (whole, reset, stopped). A server may be slower, pause longer or answer more than the kit
 * waits for or keeps, so what the kit did not see is judged by no rule, and is never the server's
 * failure; what came before the cut is judged as any answer is. */
export function cutByKit(ex: Pick<Exchange, 'error' | 'status' | 'bytesRead'>): string | undefined {
  const option = ex.error && KIT_LIMITS[ex.error.kind];
  if (!option) return undefined;
  const after = ex.status === undefined ? '' : ` after ${ex.bytesRead} bytes`;
  return `the kit cut the answer${after} at its own limit: ${ex.error!.message}; raise ${option} to judge it`;
}

/** The error message a refusal carries, as ` (message)`, or nothing. */
export function errorText(ex: Exchange): string {
  const json = bodyJson(ex);
  const message = json.ok ? (json.value as { error?: { message?: unknown } })?.error?.message : undefined;
  return typeof message === 'string' ? ` (${message.length > 200 ? `${message.slice(0, 200)}…` : message})` : '';
}

/** One line on what came back, for messages: `status 500`, `no answer (timeout: ...)`. */
export function describe(ex: Exchange): string {
  if (ex.status === undefined) return `no answer (${ex.error?.kind}: ${ex.error?.message})`;
  if (ex.rateLimited) return `status 429, still rate limited after ${ex.retries} retries`;
  return `status ${ex.status}${ex.error ? ` then ${ex.error.kind}: ${ex.error.message}` : ''}`;
}

// --- Discovery --------------------------------------------------------------------------------

/** The most characters of a model id the kit sends. Every chat request carries its model's id, and
 * a run keeps its requests (for their evidence, and the commands that replay them): with a listed id
 * of a megabyte, a run's memory followed the id's length (1 MB: 649 MB at its peak, 4 MB: over a
 * gigabyte). A real id is some tens of characters, a cloud's resource name some hundreds. A listed id
 * past this is the kit's own limit, as --max-body is, not the server's failure: it is left out of
 * every model the kit tries, and the report says so. */
export const MODEL_ID_MAX = 4_096;

export interface ModelIds {
  ids: string[];
  /** Why the list could not be read, when it could not. */
  problem?: string;
  /** What `ids` leaves out: the listed ids longer than MODEL_ID_MAX, said in a line (their count, the
   * first one's start). */
  leftOut?: string;
  /** The kit cut the list at its own limit (cutByKit): `problem` says so, and no owner fails for it. */
  cut?: boolean;
}

/** The ids in a key's model list, read leniently: the models suite judges the list's shape. An id
 * longer than MODEL_ID_MAX is left out, said in `leftOut`, and held by nothing of the run. */
export function modelIds(ctx: CheckContext, auth: 'primary' | 'second'): Promise<ModelIds> {
  return ctx.memo(`model-ids:${auth}`, async (c) => {
    const ex = await listModels(c, auth);
    const cut = cutByKit(ex);
    if (cut && (ex.status === undefined || is2xx(ex))) return { ids: [], problem: `the model list: ${cut}`, cut: true };
    if (!is2xx(ex)) return { ids: [], problem: `the model list answered ${describe(ex)}` };
    const json = bodyJson(ex);
    if (!json.ok) return { ids: [], problem: `the model list is unreadable: ${json.error}` };
    const data = (json.value as { data?: unknown })?.data;
    if (!Array.isArray(data)) return { ids: [], problem: 'the model list has no data array' };
    const listed = data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string' && id.length > 0);
    const long = listed.filter((id) => id.length > MODEL_ID_MAX);
    const ids = [...new Set(long.length ? listed.filter((id) => id.length <= MODEL_ID_MAX) : listed)];
    if (!long.length) return { ids };
    const first = `${long[0].slice(0, 40)}… (${long[0].length} characters)`;
    return {
      ids,
      leftOut: `${long.length} listed model id${long.length === 1 ? '' : 's'} longer than ${MODEL_ID_MAX} characters, the most conformance sends as a model, left out: ${first}${long.length > 1 ? ' and more' : ''}`,
    };
  });
}

export interface CatalogInfo {
  /** Entries by id, as found (not validated: the catalog suite judges them). */
  entries: Map<string, Record<string, unknown>>;
  problem?: string;
  /** The check whose rule the problem breaks: catalog.available when the catalog is not served as
   * JSON, catalog.schema when it has no data array. */
  owner?: string;
  /** The catalog cannot be judged: absent at a site URL the user did not choose, its origin
   * (another than the API's, which the run reached) failed TLS, or the kit cut it at its own limit
   * (`cut`, said as the reason they are not judged). Its checks are not-tested. */
  notTested?: boolean;
  cut?: boolean;
}

export function catalog(ctx: CheckContext): Promise<CatalogInfo> {
  return ctx.memo('catalog', async (c) => {
    const ex = await getCatalog(c);
    const entries = new Map<string, Record<string, unknown>>();
    if (ex.error?.kind === 'tls') return { entries, notTested: true, problem: `the catalog at ${ex.request.url} could not be fetched over TLS: ${ex.error.message}` };
    // Not seen whole, the catalog is judged by no rule: the kit's limit is nobody's failure.
    const cut = cutByKit(ex);
    if (cut && (ex.status === undefined || is2xx(ex))) return { entries, notTested: true, cut: true, problem: `the catalog at ${ex.request.url}: ${cut}` };
    if (!is2xx(ex)) {
      const absentAtDefault = !c.target.siteUrlExplicit && (ex.status === 404 || ex.status === undefined);
      return {
        entries,
        notTested: absentAtDefault,
        problem: `the catalog at ${ex.request.url} answered ${describe(ex)}${absentAtDefault ? '; if it lives elsewhere, pass --site-url' : ''}`,
        ...(absentAtDefault ? {} : { owner: 'catalog.available' }),
      };
    }
    const json = bodyJson(ex);
    const data = json.ok ? (json.value as { data?: unknown })?.data : undefined;
    if (!Array.isArray(data))
      return json.ok ? { entries, problem: 'the catalog has no data array', owner: 'catalog.schema' } : { entries, problem: `the catalog is unreadable: ${json.error}`, owner: 'catalog.available' };
    for (const m of data) if (m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string') entries.set((m as { id: string }).id, m as Record<string, unknown>);
    return { entries };
  });
}

/** The verdict of a catalog check where the catalog cannot be judged (CatalogInfo.notTested). */
export const catalogUnjudged = (info: CatalogInfo): Verdict => (info.cut ? unjudgedBy('cut', info.problem!) : notTested(info.problem!));

export type ParameterDescriptor = { type: string; min?: number; max?: number; values?: unknown[]; max_items?: number; default?: unknown };

/** The supported_parameters a catalog entry declares on its text output modality. */
export function declaredParameters(entry: Record<string, unknown> | undefined): Record<string, ParameterDescriptor> | undefined {
  const outputs = entry?.output_modalities;
  if (!Array.isArray(outputs)) return undefined;
  const text = outputs.find((o) => (o as { type?: unknown })?.type === 'text') as { supported_parameters?: unknown } | undefined;
  const params = text?.supported_parameters;
  return params && typeof params === 'object' ? (params as Record<string, ParameterDescriptor>) : undefined;
}

const bounded = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/** The declared range of a numeric parameter, integers kept integral. */
export function declaredRange(d: ParameterDescriptor | undefined): { min?: number; max?: number } {
  if (!d || (d.type !== 'range' && d.type !== 'integer')) return {};
  const int = d.type === 'integer';
  return {
    min: bounded(d.min) ? (int ? Math.ceil(d.min) : d.min) : undefined,
    max: bounded(d.max) ? (int ? Math.floor(d.max) : d.max) : undefined,
  };
}

/** Sampling fields the kit adds for its own ends (a reproducible answer), never the subject of a rule. */
const OPTIONAL_FIELDS = ['temperature', 'top_p', 'seed'];

/** The body kept within what the catalog declares for its model: max_tokens and the sampling
 * fields moved inside their declared ranges (max_tokens also within the declared output length),
 * and sampling fields the entry does not declare left out. A model the catalog does not describe
 * gets the body as it is. */
export async function fit(ctx: CheckContext, body: ChatBody): Promise<ChatBody> {
  const entry = typeof body.model === 'string' ? (await catalog(ctx)).entries.get(body.model) : undefined;
  const params = declaredParameters(entry);
  if (!params) return body;
  const out: ChatBody = { ...body };
  for (const name of ['max_tokens', ...OPTIONAL_FIELDS]) {
    if (!(name in out) || typeof out[name] !== 'number') continue;
    if (!(name in params)) {
      if (name !== 'max_tokens') delete out[name];
      continue;
    }
    const { min, max } = declaredRange(params[name]);
    out[name] = Math.min(Math.max(out[name] as number, min ?? -Infinity), max ?? Infinity);
  }
  const longest = outputLength(entry);
  if (typeof out.max_tokens === 'number' && longest !== undefined && out.max_tokens > longest) out.max_tokens = longest;
  return out;
}

/** The most output tokens the catalog entry declares for text (max_length), if any. */
export function outputLength(entry: Record<string, unknown> | undefined): number | undefined {
  const outputs = entry?.output_modalities;
  const text = Array.isArray(outputs) ? (outputs.find((o) => (o as { type?: unknown })?.type === 'text') as { max_length?: { value?: unknown } } | undefined) : undefined;
  const v = text?.max_length?.value;
  return bounded(v) && v >= 1 ? Math.floor(v) : undefined;
}

/** The context length the catalog entry declares (text input's max_context_length), if any. */
export function contextLength(entry: Record<string, unknown> | undefined): number | undefined {
  const inputs = entry?.input_modalities;
  const text = Array.isArray(inputs) ? (inputs.find((o) => (o as { type?: unknown })?.type === 'text') as { supported_inputs?: { max_context_length?: { value?: unknown } } } | undefined) : undefined;
  const v = text?.supported_inputs?.max_context_length?.value;
  return bounded(v) && v >= 1 ? Math.floor(v) : undefined;
}

/** The body `ask` sends on a path: streamed with its usage asked for, fitted to the catalog. */
export const asked = (ctx: CheckContext, path: ApiPath, body: ChatBody): Promise<ChatBody> => fit(ctx, path.stream ? { ...body, stream: true, stream_options: { include_usage: true } } : body);

/** The smallest chat request a model serves; one body, so that every suite shares its answer. */
export const sayOk = (model: string): ChatBody => ({ model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 16 });

// --- Response reading -------------------------------------------------------------------------

/** Why a body is not whole: cut at the cap, cut by a timeout or a reset; undefined when it is whole. */
export function cutShort(ex: Exchange): string | undefined {
  if (ex.complete && !ex.error) return undefined;
  if (ex.error?.kind === 'cap') return `the answer was ${ex.error.message}`;
  return `the answer did not arrive whole (${ex.error?.kind ?? 'incomplete'}: ${ex.error?.message ?? 'the body did not end normally'}) after ${ex.bytesRead} bytes`;
}

// --- Stream reading ---------------------------------------------------------------------------

/** The payload that ends an OpenAI-compatible stream (the document does not show one: 6). */
export const DONE_MARKER = '[DONE]';

export interface StreamPayload {
  /** Position among the stream's dispatched events. */
  at: number;
  data: string;
  /** The parsed JSON, when the payload is JSON (never for the terminator). */
  json?: unknown;
  /** Why a payload other than the terminator is not JSON. */
  error?: string;
}

export interface StreamRead {
  sse: SseParse;
  payloads: StreamPayload[];
  /** The payloads that are JSON objects, in order: the chunks; `sound` once a rule asked whether the
   * chunk is a chat.completion.chunk as a whole (suites/answer.ts soundChunk). */
  chunks: { at: number; chunk: Record<string, unknown>; sound?: boolean }[];
  /** Position of the first terminator, if any. */
  doneAt?: number;
  /** Why there is no stream to read (a refusal). */
  problem?: string;
}

/** A streamed reply read leniently: each event's data parsed as JSON where it is JSON. What arrived
 * before a cut is read all the same; the stream checks judge the cut itself. */
export function readStream(ex: Exchange): StreamRead {
  if (!is2xx(ex)) return { sse: { events: [], findings: [], tail: '' }, payloads: [], chunks: [], problem: `the streaming request was refused: ${describe(ex)}` };
  // Read once for the checks that read it in turn; the payloads cost about the body's bytes.
  return readOf(ex, 'stream', () => readSse(bodySse(ex)));
}

function readSse(sse: SseParse): StreamRead {
  // One pass: the payloads, the chunks among them and the first terminator (a load reads every stream).
  const payloads: StreamPayload[] = [];
  const chunks: StreamRead['chunks'] = [];
  let doneAt: number | undefined;
  for (let at = 0; at < sse.events.length; at++) {
    const data = sse.events[at].data;
    if (data === DONE_MARKER) {
      payloads.push({ at, data });
      doneAt ??= at;
      continue;
    }
    const json = parseJson(data);
    if (!json.ok) {
      payloads.push({ at, data, error: json.error });
      continue;
    }
    payloads.push({ at, data, json: json.value });
    if (json.value !== null && typeof json.value === 'object' && !Array.isArray(json.value)) chunks.push({ at, chunk: json.value as Record<string, unknown>, sound: undefined });
  }
  return { sse, payloads, chunks, doneAt };
}

/** A chunk's choices that are objects (lenient: chunk-schema judges the rest). */
export const choicesOf = (chunk: Record<string, unknown>): Record<string, unknown>[] =>
  Array.isArray(chunk.choices) ? chunk.choices.filter((c): c is Record<string, unknown> => !!c && typeof c === 'object' && !Array.isArray(c)) : [];

export type ApiCheck = import('../engine/check.js').Check<CheckContext, ApiPath>;

/** The end of an audit line that a factory builds: the mock faults that show its request telling a
 * rule-breaking server apart ("shown by faults a, b and c"). */
export const shownBy = (faults: readonly string[]) => `shown by fault${faults.length > 1 ? 's' : ''} ${faults.length > 1 ? `${faults.slice(0, -1).join(', ')} and ${faults.at(-1)}` : faults[0]}`;

/** A check as a suite file writes it: its suite is the first part of its id, filled in by inSuite.
 * `onEach`: its rule as held on each answer of a load (suites/each.ts reads it by the check's id). */
export type CheckDef = Omit<ApiCheck, 'suite'> & { suite?: string; onEach?: object; about?: readonly string[] };

/** The rules held on each answer of a load, by check id, as inSuite found them on the checks. */
export const ON_EACH = new Map<string, object>();
/** The request fields each check's rule is about beyond those it owns (CheckDef.about), by check id:
 * a refusal of one is never judged without it (ask.ts). */
export const ABOUT = new Map<string, readonly string[]>();

/** A suite's checks, each with its suite: the part of its id before the first dot, which must name it.
 * A check's rule on each answer is kept apart (ON_EACH): the check itself stays data and its run. */
export function inSuite(suite: string, checks: CheckDef[]): ApiCheck[] {
  return checks.map(({ onEach, about, ...c }) => {
    if (!c.id.startsWith(`${suite}.`)) throw new Error(`check ${c.id} is listed in the ${suite} suite`);
    if (onEach) ON_EACH.set(c.id, onEach);
    if (about) ABOUT.set(c.id, about);
    return { ...c, suite };
  });
}
