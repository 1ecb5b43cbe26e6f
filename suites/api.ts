// The API's requests, named once and shared by every suite, and the facts discovered from the
// target (model lists, the catalog) memoized for the run.
import { bodyJson, bodySse, type Exchange } from './harness/exchanges.js';
import type { SseParse } from './harness/sse.js';
import { combine, notTested, type Verdict } from './harness/check.js';
import type { CheckContext } from './harness/runner.js';

export type Auth = 'primary' | 'second' | 'none' | { header: string };

function authHeaders(ctx: CheckContext, auth: Auth): Record<string, string> {
  if (auth === 'none') return {};
  if (auth === 'primary') return { authorization: `Bearer ${ctx.target.apiKey}` };
  if (auth === 'second') return { authorization: `Bearer ${ctx.target.secondApiKey ?? ''}` };
  return { authorization: auth.header };
}

export const apiUrl = (ctx: CheckContext, path: string) => `${ctx.target.baseUrl}${path}`;
export const catalogUrl = (ctx: CheckContext) => `${ctx.target.siteUrl.replace(/\/+$/, '')}/models.json`;

export type ChatBody = Record<string, unknown>;

/** POST /v1/chat/completions with a JSON body (or a raw string, for malformed-body checks). */
export function chat(ctx: CheckContext, body: ChatBody | string, opts: { auth?: Auth; label?: string } = {}): Promise<Exchange> {
  return ctx.send(
    {
      method: 'POST',
      url: apiUrl(ctx, '/v1/chat/completions'),
      headers: { 'content-type': 'application/json', ...authHeaders(ctx, opts.auth ?? 'primary') },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    },
    opts.label ?? 'chat completion',
  );
}

export function listModels(ctx: CheckContext, auth: Auth = 'primary', label = 'model list'): Promise<Exchange> {
  return ctx.send({ method: 'GET', url: apiUrl(ctx, '/v1/models'), headers: authHeaders(ctx, auth) }, label);
}

export function getCatalog(ctx: CheckContext): Promise<Exchange> {
  return ctx.send({ method: 'GET', url: catalogUrl(ctx), headers: {} }, 'catalog');
}

export const is2xx = (ex: Exchange) => ex.status !== undefined && ex.status >= 200 && ex.status < 300;
export const is4xx = (ex: Exchange) => ex.status !== undefined && ex.status >= 400 && ex.status < 500;

/** One line on what came back, for messages: `status 500`, `no answer (timeout: ...)`. */
export function describe(ex: Exchange): string {
  if (ex.status === undefined) return `no answer (${ex.error?.kind}: ${ex.error?.message})`;
  if (ex.rateLimited) return `status 429, still rate limited after ${ex.retries} retries`;
  return `status ${ex.status}${ex.error ? ` then ${ex.error.kind}: ${ex.error.message}` : ''}`;
}

// --- Discovery --------------------------------------------------------------------------------

export interface ModelIds {
  ids: string[];
  /** Why the list could not be read, when it could not. */
  problem?: string;
}

/** The ids in a key's model list, read leniently: the models suite judges the list's shape. */
export function modelIds(ctx: CheckContext, auth: 'primary' | 'second'): Promise<ModelIds> {
  return ctx.memo(`model-ids:${auth}`, async (c) => {
    const ex = await listModels(c, auth);
    if (!is2xx(ex)) return { ids: [], problem: `the model list answered ${describe(ex)}` };
    const json = bodyJson(ex);
    if (!json.ok) return { ids: [], problem: `the model list is unreadable: ${json.error}` };
    const data = (json.value as { data?: unknown })?.data;
    if (!Array.isArray(data)) return { ids: [], problem: 'the model list has no data array' };
    const ids = data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string' && id.length > 0);
    return { ids: [...new Set(ids)] };
  });
}

/** The models the chat checks run on: --model if given, else the first listed for the primary key. */
export async function modelsUnderTest(ctx: CheckContext): Promise<{ models: string[]; problem?: string }> {
  if (ctx.target.models.length) return { models: ctx.target.models };
  const { ids, problem } = await modelIds(ctx, 'primary');
  if (!ids.length) return { models: [], problem: `${problem ?? 'the model list is empty'}; name a model with --model` };
  return { models: [ids[0]] };
}

/** One rule applied to each model of a list, the verdicts combined; every message names its model,
 * so a failure on one of several models says which. An empty list is not-tested, with its reason. */
export async function onEachModel(list: { models: string[]; problem?: string }, rule: (model: string) => Promise<Verdict>): Promise<Verdict> {
  if (!list.models.length) return notTested(list.problem ?? 'no model to test');
  const verdicts = await Promise.all(
    list.models.map(async (model) => {
      const v = await rule(model);
      return { ...v, message: v.message === undefined ? undefined : `${model}: ${v.message}`, notes: v.notes?.map((n) => `${model}: ${n}`) };
    }),
  );
  return combine(verdicts);
}

export interface CatalogInfo {
  /** Entries by id, as found (not validated: the catalog suite judges them). */
  entries: Map<string, Record<string, unknown>>;
  problem?: string;
  /** The catalog is absent at a site URL the user did not choose: a hint, not a failure. */
  absentAtDefault?: boolean;
}

export function catalog(ctx: CheckContext): Promise<CatalogInfo> {
  return ctx.memo('catalog', async (c) => {
    const ex = await getCatalog(c);
    const entries = new Map<string, Record<string, unknown>>();
    if (!is2xx(ex)) {
      const absentAtDefault = !c.target.siteUrlExplicit && (ex.status === 404 || ex.status === undefined);
      return {
        entries,
        absentAtDefault,
        problem: `the catalog at ${ex.request.url} answered ${describe(ex)}${absentAtDefault ? '; if it lives elsewhere, pass --site-url' : ''}`,
      };
    }
    const json = bodyJson(ex);
    const data = json.ok ? (json.value as { data?: unknown })?.data : undefined;
    if (!Array.isArray(data)) return { entries, problem: json.ok ? 'the catalog has no data array' : `the catalog is unreadable: ${json.error}` };
    for (const m of data) if (m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string') entries.set((m as { id: string }).id, m as Record<string, unknown>);
    return { entries };
  });
}

export type ParameterDescriptor = { type: string; min?: number; max?: number; values?: unknown[]; max_items?: number; default?: unknown };

/** The supported_parameters a catalog entry declares on its text output modality. */
export function declaredParameters(entry: Record<string, unknown> | undefined): Record<string, ParameterDescriptor> | undefined {
  const outputs = entry?.output_modalities;
  if (!Array.isArray(outputs)) return undefined;
  const text = outputs.find((o) => (o as { type?: unknown })?.type === 'text') as { supported_parameters?: unknown } | undefined;
  const params = text?.supported_parameters;
  return params && typeof params === 'object' ? (params as Record<string, ParameterDescriptor>) : undefined;
}

/** Why a model's catalog entry does not declare `parameter` among its supported_parameters, or
 * undefined when it does: a check of an optional feature (tools, response_format) runs only where
 * the catalog promises it, since the document leaves unsupported parameters' behaviour unshown. */
export async function undeclared(ctx: CheckContext, model: string, parameter: string): Promise<string | undefined> {
  const cat = await catalog(ctx);
  if (cat.problem) return `whether it supports ${parameter} is declared in the catalog: ${cat.problem}`;
  const entry = cat.entries.get(model);
  if (!entry) return `the catalog has no entry for it, so nothing declares ${parameter}`;
  const params = declaredParameters(entry);
  return params && parameter in params ? undefined : `its catalog entry does not declare ${parameter} among supported_parameters`;
}

/** The smallest chat request a model serves; one body, so that every suite shares its answer. */
export const sayOk = (model: string): ChatBody => ({ model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 16 });

/** Whether the primary key is served at all (a plain request to the first model under test, or the
 * model list when no model is known): without that, a refusal or a 4xx proves nothing. */
export function baseline(ctx: CheckContext): Promise<{ model?: string; problem?: string }> {
  return ctx.memo('baseline', async (c) => {
    const { models } = await modelsUnderTest(c);
    if (!models.length) {
      const ex = await listModels(c);
      return is2xx(ex) ? {} : { problem: `with the primary key, GET /v1/models answered ${describe(ex)}` };
    }
    const ex = await chat(c, sayOk(models[0]), { label: 'plain chat with the primary key' });
    return is2xx(ex) ? { model: models[0] } : { model: models[0], problem: `with the primary key, a plain chat request to ${models[0]} answered ${describe(ex)}` };
  });
}

// --- Response reading -------------------------------------------------------------------------

export interface ChatReply {
  body?: Record<string, unknown>;
  /** The first choice's message and finish_reason, read leniently. */
  message?: { role?: unknown; content?: unknown; tool_calls?: unknown; reasoning_content?: unknown };
  finishReason?: unknown;
  usage?: Record<string, unknown>;
  problem?: string;
}

/** A non-streamed reply read leniently, for checks about one field; `problem` says why not. */
export function readReply(ex: Exchange): ChatReply {
  if (!is2xx(ex)) return { problem: `the request was refused: ${describe(ex)}` };
  const json = bodyJson(ex);
  if (!json.ok) return { problem: json.error };
  const body = json.value;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { problem: 'the body is not a JSON object' };
  const b = body as Record<string, unknown>;
  const choice = Array.isArray(b.choices) ? (b.choices[0] as Record<string, unknown> | undefined) : undefined;
  const message = choice?.message && typeof choice.message === 'object' ? (choice.message as ChatReply['message']) : undefined;
  const usage = b.usage && typeof b.usage === 'object' ? (b.usage as Record<string, unknown>) : undefined;
  return { body: b, message, finishReason: choice?.finish_reason, usage, problem: choice ? undefined : 'no choices[0] in the body' };
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
  /** The payloads that are JSON objects, in order: the chunks. */
  chunks: { at: number; chunk: Record<string, unknown> }[];
  /** Position of the first terminator, if any. */
  doneAt?: number;
  /** Why there is no stream to read (a refusal). */
  problem?: string;
}

/** A streamed reply read leniently: each event's data parsed as JSON where it is JSON. What arrived
 * before a cut is read all the same; the stream checks judge the cut itself. */
export function readStream(ex: Exchange): StreamRead {
  if (!is2xx(ex)) return { sse: { events: [], findings: [], tail: '' }, payloads: [], chunks: [], problem: `the streaming request was refused: ${describe(ex)}` };
  const sse = bodySse(ex);
  const payloads: StreamPayload[] = sse.events.map((e, at) => {
    if (e.data === DONE_MARKER) return { at, data: e.data };
    try {
      return { at, data: e.data, json: JSON.parse(e.data) };
    } catch (err) {
      return { at, data: e.data, error: (err as Error).message };
    }
  });
  const chunks = payloads
    .filter((p) => p.json !== null && typeof p.json === 'object' && !Array.isArray(p.json))
    .map((p) => ({ at: p.at, chunk: p.json as Record<string, unknown> }));
  const done = payloads.find((p) => p.data === DONE_MARKER);
  return { sse, payloads, chunks, doneAt: done?.at };
}

/** A chunk's choices that are objects (lenient: chunk-schema judges the rest). */
export const choicesOf = (chunk: Record<string, unknown>): Record<string, unknown>[] =>
  Array.isArray(chunk.choices) ? chunk.choices.filter((c): c is Record<string, unknown> => !!c && typeof c === 'object' && !Array.isArray(c)) : [];

export type ApiCheck = import('./harness/check.js').Check<CheckContext>;
