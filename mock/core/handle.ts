// The mock's core: one plain request in, one plain reply (JSON, or a stream of frames) out.
// Routing, auth, scenarios, faults and the journal live here; the transports know nothing of them.
import { DEFAULT_CONFIG } from '../config/default.js';
import type { ContentSplit, KeyDef, MockConfig, ModelDef, Scenario, Timing } from '../config/types.js';
import { latin1Of } from './bytes.js';
import { completionJson, stamp, streamChunks, type StreamEvent } from './chunks.js';
import { mergeContent, parseContent, type ContentChoice } from './content/choice.js';
import { DEFAULT_PROFILE, PROFILES } from './content/profiles.js';
import { splitBytes } from './content/split.js';
import { Control, CONTROL_PATH, controlRoute, type Applied, type Pace } from './control.js';
import { preflight, withCors } from './cors.js';
import { echoed, errorReply } from './errors.js';
import { requestJson } from './faults/rewrite.js';
import { resolveFaults, type FaultRef, type SelectedFault } from './faults/select.js';
import type { Fault } from './faults/index.js';
import { askedOf } from './asked.js';
import { generate, type ChatRequest, type Script } from './generate.js';
import { Journal, JOURNAL_PATH, type BodyRead } from './journal.js';
import { journalRoute } from './journal-route.js';
import { bodyShape, limitsOf, overLimit } from './limits.js';
import { catalogDocument, modelList } from './models.js';
import { hash, prng } from './random.js';
import { recordedCompletion, recordedFrames } from './recorded.js';
import { ReplyCache } from './reply-cache.js';
import { compileScenarios } from './scenarios.js';
import { bodyDelay, pacedFrames } from './timing.js';
import { isStream, type MockReply, type MockRequest } from './types.js';
import { parameterProblem, requestProblem } from './validate.js';
import { bearerToken, noBearer } from './bearer.js';
import { API_ROUTES, CATALOG_PATH, CHAT_PATH, MODELS_PATH, routePath } from './routes.js';

export interface Mock {
  readonly config: MockConfig;
  /** What the mock received, newest last; also served at GET /__mock/requests. */
  readonly journal: Journal;
  /** What is switched on while it runs (faults, content, pace): also served at /__mock/control. */
  readonly control: Control;
  handle(req: MockRequest): MockReply;
}

export interface MockOptions {
  /** Faults applied to every request, in order (over the configuration's own). */
  faults?: readonly (Fault | FaultRef)[];
  /** An unmatched chat request is refused, naming the closest scenario. */
  strictScenarios?: boolean;
  /** Any Bearer key that is not one of the configuration's acts as this key (a replay of
   * recordings, which never hold the key they were made with). */
  anyKey?: KeyDef;
  /** Recorded pauses are not kept: recordings replay as fast as they can. */
  noDelays?: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' };
// The scheme name is case-insensitive (RFC 9110, 11.1): `bearer KEY` is as good as `Bearer KEY`.
export const FAULT_HEADER = 'x-mock-fault';
export const CONTENT_HEADER = 'x-mock-content';

/** A chat request worked out: a fixed reply (an error), or a completion's serialized parts. */
interface Prepared {
  reply?: MockReply;
  json?: string;
  events?: StreamEvent[];
  delayMs?: number;
  seed?: number;
  idBase?: string;
  scenario?: string;
  faults: SelectedFault[];
  stream: boolean;
  timing?: Timing;
  /** A recording's pauses, in place of the timing. */
  delays?: number[];
  split?: ContentSplit;
  /** The content profile and split in effect: `markdown; split=bytes`. */
  content?: string;
  /** In place of the usual headers (a recording that tells its drift). */
  headers?: Record<string, string>;
  /** The model the request named. */
  model?: string;
  /** Whether the body was JSON, and what it asked: for the journal, which does not read it again. */
  read?: BodyRead;
}

/** The split a content choice asks for; `none` is none. */
const splitOf = (c: ContentChoice | undefined): ContentSplit | undefined => (c?.split && c.split !== 'none' ? c.split : undefined);

const DRIFT_HEADER = 'x-mock-recorded-drift';

/** A recording whose upstream departed from the document says so on every replay: how many
 * departures, and the first (in ASCII, as a header must be); the rest are in its file. */
function driftHeaders(drift: readonly string[] | undefined, stream: boolean): Record<string, string> | undefined {
  if (!drift?.length) return undefined;
  const first = drift[0].replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  return { ...(stream ? SSE_HEADERS : JSON_HEADERS), [DRIFT_HEADER]: `${drift.length}; ${first}` };
}

/** Requests larger than this are worked out each time rather than remembered. */
const CACHED_BODY_MAX = 16 * 1024;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const NOT_ASCII = /[^\x00-\x7f]/;
const NO_FAULTS: readonly SelectedFault[] = Object.freeze([]) as readonly SelectedFault[];
const NO_REFS: string[] = Object.freeze([]) as unknown as string[];
const NOT_READ = Symbol('not read');
const NOT_JSON: BodyRead = Object.freeze({ json: false, asked: null });

/** What one request turned out to be, for the journal and the faults a scenario names. */
interface Trace {
  key?: KeyDef;
  scenario?: string;
  faults: SelectedFault[];
  stream: boolean;
  timing?: Timing;
  split?: ContentSplit;
  content?: string;
  model?: string;
  /** The body as parsed for this request when it is too large to be remembered: the journal cuts it without parsing it again. */
  parsed?: unknown;
  read?: BodyRead;
  /** The body's text (bodyText), when no fault rewrote the request since it was read. */
  text?: string;
}

/** A body as Latin-1 text when it is small enough to be remembered: one character per byte, every
 * byte kept, so a cache key exact even for bytes that are not UTF-8, and what its bounds are scanned
 * on (a string's search is V8's own; a Buffer's indexOf is a call into Node for each string). */
const bodyText = (body: MockRequest['body']): string | undefined => (typeof body === 'string' ? body : body && body.length <= CACHED_BODY_MAX ? latin1Of(body) : undefined);

export function createMock(config: MockConfig = DEFAULT_CONFIG, opts: MockOptions = {}): Mock {
  const keys = new Map(config.keys.map((k) => [k.key, k]));
  const models = new Map(config.models.map((m) => [m.id, m]));
  // Bodies that never change are serialized once, not per request.
  const lists = new Map(config.keys.map((k) => [k.id, JSON.stringify(modelList(config, k))]));
  const catalog = JSON.stringify(config.catalog ?? catalogDocument(config));
  const strictScenarios = opts.strictScenarios ?? config.strict_scenarios ?? false;
  // Strict with no scenario at all refuses every chat request: nothing was scripted for it.
  const scenarios = config.scenarios?.length || strictScenarios ? compileScenarios(config.scenarios ?? []) : undefined;
  const journal = new Journal(config.journal_size, config.journal_bytes);
  const limits = limitsOf(config);
  const control = new Control(config);
  // What replies hold, worked out once: for every model, per model (over it), per scenario.
  const content = config.content ? parseContent(config.content) : undefined;
  const modelContent = new Map(config.models.map((m) => [m.id, m.content ? mergeContent(content, parseContent(m.content)) : content]));
  const scenarioContent = new Map<Scenario, ContentChoice>((config.scenarios ?? []).filter((s) => s.content).map((s) => [s, parseContent(s.content!)]));
  const always = resolveFaults([...(config.faults?.always ?? []), ...(opts.faults ?? [])]);
  /** A fault of the whole mock that takes CORS away (a preflight carries no fault header of its own). */
  const corsOff = always.some((f) => f.fault.withoutCors);
  const random = config.faults?.random;
  const pool = random ? resolveFaults(random.pool) : [];
  const draw = prng(random?.seed ?? 1);
  // `times` counts per fault reference: "the first N requests it applies to, then pass".
  const uses = new Map<string, number>();
  // What faults keep across requests (the answers in flight, for the load faults): this mock's own.
  const faultState = new Map<string, unknown>();
  let served = 0;

  const authenticate = (req: MockRequest): KeyDef | MockReply => {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return noBearer(req.headers.authorization)!;
    return keys.get(token) ?? opts.anyKey ?? errorReply(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
  };

  // The body prepare parsed last: handle is synchronous, so it is the request's being handled.
  let lastParsed: unknown;
  /** Everything about a chat request that follows from its bytes and key alone: the mock is
   * deterministic, so it is worked out once and only stamped (id, created) per request. */
  const prepare = (text: string | undefined, raw: Uint8Array | string | undefined, key: KeyDef, asked: ContentChoice | undefined, pace: Pace | undefined): Prepared => {
    let body: unknown;
    // The text the body was read from seeds the reply: serializing the parsed body again would
    // recurse as deep as the request nests (a vendor field nested 100,000 deep is legal JSON).
    let source = text;
    try {
      source ??= UTF8.decode(typeof raw === 'string' ? undefined : raw);
      body = lastParsed = JSON.parse(source);
    } catch (e) {
      return { reply: errorReply(400, `The request body is not valid JSON: ${(e as Error).message}`, 'invalid_request_error', 'invalid_json'), faults: [], stream: false, read: NOT_JSON };
    }
    const p = answer(body, source, key, asked, pace);
    p.read = { json: true, asked: askedOf(body) };
    return p;
  };

  /** The answer to a body that is JSON. */
  const answer = (body: unknown, source: string, key: KeyDef, asked: ContentChoice | undefined, pace: Pace | undefined): Prepared => {
    const fixed = (reply: MockReply, extra: Partial<Prepared> = {}): Prepared => ({ reply, faults: [], stream: false, ...extra });
    const problem = requestProblem(body);
    const named = (body as { model?: unknown } | null)?.model;
    if (problem) return fixed(errorReply(400, problem.message, 'invalid_request_error', 'invalid_request', problem.param ?? null), { model: typeof named === 'string' ? named : undefined });
    const request = body as ChatRequest & Record<string, unknown>;
    const stream = request.stream === true;
    const model: ModelDef | undefined = key.models.includes(request.model) ? models.get(request.model) : undefined;
    if (!model)
      return fixed(errorReply(404, `The model '${echoed(request.model)}' does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found', 'model'), {
        stream,
        model: request.model,
      });
    const range = parameterProblem(request, model);
    if (range) return fixed(errorReply(400, range.message, 'invalid_request_error', 'unsupported_value', range.param), { stream, model: model.id });

    let script: Script = {};
    let timing = model.timing || config.timing ? { ...config.timing, ...model.timing } : undefined;
    let scenario: string | undefined;
    let faults: SelectedFault[] = [];
    let chosen = modelContent.get(model.id);
    // Seeds the reply's id and its pacing: the same request, the same every time.
    const seed = hash(source);
    if (scenarios) {
      const found = scenarios.find(request, key.id);
      if (found.scenario) {
        const { reply } = found.scenario;
        scenario = found.scenario.name;
        chosen = mergeContent(chosen, scenarioContent.get(found.scenario));
        if (found.scenario.timing) timing = { ...timing, ...found.scenario.timing };
        if (reply.fault) faults = resolveFaults([reply.fault]);
        if (reply.error)
          return fixed(errorReply(reply.error.status, reply.error.message, reply.error.type ?? 'invalid_request_error', reply.error.code ?? null, null, reply.error.headers), {
            scenario,
            faults,
            stream,
          });
        // A recording's text is what it is; how its stream is cut still follows the request.
        if (found.scenario.recorded)
          return recording(request, model, reply, seed, { scenario, stream, faults, split: splitOf(mergeContent(chosen, asked)), headers: driftHeaders(found.scenario.recorded.drift, stream) });
        script = reply;
      } else if (strictScenarios) {
        const hint = found.closest ? `; the closest is "${found.closest.name}", which differs in ${found.differs.join(', ')}` : '';
        return fixed(errorReply(400, `No scenario matches this request${hint}.`, 'invalid_request_error', 'no_scenario'), { stream });
      }
    }
    if (asked) chosen = mergeContent(chosen, asked);
    // The live pace is over the configuration's, the model's and the scenario's.
    if (pace) timing = { ...timing, ...pace };
    const completion = generate(request, model, script, chosen?.profile ? PROFILES[chosen.profile] : DEFAULT_PROFILE);
    const split = splitOf(chosen);
    const idBase = `chatcmpl-${seed.toString(36)}`;
    const content = `${chosen?.profile ?? DEFAULT_PROFILE.name}${split ? `; split=${split}` : ''}`;
    // Object literals, not spreads: this runs for every distinct request, and a spread of a fresh
    // object costs more than the rest of the line.
    if (stream)
      // Jitter is seeded by the request itself (not its id, which counts requests): the same
      // request is paced the same way every time.
      return {
        scenario,
        faults,
        stream,
        timing,
        idBase,
        split,
        content,
        model: model.id,
        events: [...streamChunks(completion, { model: model.id }, request.stream_options?.include_usage === true, timing?.chunk_tokens ?? 1, split)],
        seed,
      };
    return {
      scenario,
      faults,
      stream,
      timing,
      idBase,
      content,
      model: model.id,
      json: completionJson(completion, { model: model.id }),
      delayMs: bodyDelay(timing, completion.usage.completion_tokens, seed),
    };
  };

  const recording = (
    request: ChatRequest,
    model: ModelDef,
    reply: NonNullable<Scenario['reply']>,
    seed: number,
    common: Pick<Prepared, 'scenario' | 'stream' | 'faults' | 'split' | 'headers'>,
  ): Prepared => {
    const completion = recordedCompletion(reply, request);
    const delays = opts.noDelays ? [] : (reply.delays_ms ?? []);
    const idBase = `chatcmpl-${seed.toString(36)}`;
    if (common.stream) return { ...common, idBase, delays, events: [...streamChunks(completion, { model: model.id }, request.stream_options?.include_usage === true, 1, common.split)] };
    return { ...common, idBase, json: completionJson(completion, { model: model.id }), delayMs: delays.reduce((a, b) => a + b, 0) };
  };

  const replies = new ReplyCache<Prepared>();
  const chat = (req: MockRequest, key: KeyDef, trace: Trace, live: Applied | undefined): MockReply => {
    const header = req.headers[CONTENT_HEADER];
    let asked: ContentChoice | undefined;
    if (header) {
      try {
        asked = parseContent(header);
      } catch (e) {
        return errorReply(400, `${CONTENT_HEADER}: ${(e as Error).message}`, 'invalid_request_error', 'unknown_content', null);
      }
    }
    // The request's own header is over what the control switched on.
    if (live?.content) asked = mergeContent(live.content, asked);
    const text = trace.text ?? bodyText(req.body);
    const cached = text !== undefined && text.length <= CACHED_BODY_MAX;
    const shaped = live?.shape ? `${key.id}\u0001${live.shape}` : key.id;
    const space = header ? `${shaped}\u0000${header}` : shaped;
    let p = cached ? replies.get(space, text) : undefined;
    if (!p) {
      // Bytes that are all ASCII read the same as Latin-1 and as UTF-8: no second decoding.
      const utf8 = typeof req.body === 'string' ? req.body : text !== undefined && !NOT_ASCII.test(text) ? text : undefined;
      p = prepare(utf8, req.body, key, asked, live?.pace);
      if (cached) replies.offer(space, text, p);
      else trace.parsed = lastParsed;
      lastParsed = undefined;
    }
    trace.scenario = p.scenario;
    trace.stream = p.stream;
    trace.timing = p.timing;
    trace.split = p.split;
    trace.content = p.content;
    trace.model = p.model;
    trace.read = p.read;
    if (p.faults.length) trace.faults.push(...p.faults);
    if (p.reply) return p.reply;
    const id = `${p.idBase}${(++served).toString(36)}`;
    const created = Math.floor(Date.now() / 1000);
    if (p.events && p.delays) return { status: 200, headers: p.headers ?? SSE_HEADERS, stream: recordedFrames(p.events, p.delays, (payload) => stamp(payload, id, created)) };
    if (p.events) return { status: 200, headers: SSE_HEADERS, stream: pacedFrames(p.events, p.timing, p.seed ?? 0, (payload) => stamp(payload, id, created)) };
    const body = stamp(p.json!, id, created);
    const headers = p.headers ?? JSON_HEADERS;
    return p.delayMs ? { status: 200, headers, body, delayMs: p.delayMs } : { status: 200, headers, body };
  };

  const route = (req: MockRequest, path: string, method: string, trace: Trace, live: Applied | undefined): MockReply => {
    const allowed = API_ROUTES[path];
    if (!allowed) return errorReply(404, `No route for ${echoed(method)} ${echoed(path)}.`, 'invalid_request_error', 'not_found');
    if (method !== allowed)
      return { ...errorReply(405, `${path} takes ${allowed}, not ${echoed(method)}.`, 'invalid_request_error', 'method_not_allowed'), headers: { ...JSON_HEADERS, allow: allowed } };
    if (path === CATALOG_PATH) return { status: 200, headers: JSON_HEADERS, body: catalog };
    const key = authenticate(req);
    if (!('key' in key)) return key;
    trace.key = key;
    if (path === MODELS_PATH) return { status: 200, headers: JSON_HEADERS, body: lists.get(key.id)! };
    return chat(req, key, trace, live);
  };

  /** The faults of this request: always-on, named in its header, drawn at the configured rate. */
  const selectFaults = (req: MockRequest, path: string): readonly SelectedFault[] => {
    const header = req.headers[FAULT_HEADER];
    // The common case, no fault at all, allocates nothing.
    if (!header && !always.length && !random) return NO_FAULTS;
    const selected = [...always, ...(header ? resolveFaults(header.split(',')) : [])];
    if (random && path === CHAT_PATH && pool.length && draw() < random.rate) selected.push(pool[Math.floor(draw() * pool.length)]);
    return selected;
  };

  /** A fault with `times` applies to that many requests, then lets the rest through. */
  const due = (f: SelectedFault): boolean => {
    const times = Number(f.params.times);
    if (!f.params.times || !Number.isFinite(times)) return true;
    const n = uses.get(f.ref) ?? 0;
    uses.set(f.ref, n + 1);
    return n < times;
  };

  /** What a fault that answers before the body is read (Fault.raw) makes of a body past the limits. */
  const rawReply = (req: MockRequest, path: string): MockReply | undefined => {
    let selected: readonly SelectedFault[];
    try {
      selected = selectFaults(req, path);
    } catch {
      return undefined;
    }
    for (const f of selected) {
      const r = f.fault.raw?.(req, { config, params: f.params, state: faultState });
      if (r) return r;
    }
    return undefined;
  };

  const handle = (req: MockRequest): MockReply => {
    const method = req.method.toUpperCase();
    if (method === 'OPTIONS') return corsOff ? errorReply(404, 'Not found.', 'invalid_request_error', 'not_found') : preflight(req, config.cors);
    const path = routePath(req.path);
    // Before anything reads the body (the control, the faults, validation, the journal): a body
    // past a limit is refused, and journaled as text, never parsed.
    const text = bodyText(req.body);
    const shape = req.body?.length ? bodyShape(text ?? req.body, limits) : undefined;
    // Asked only when there is something to refuse: a size past the limit, or a shape past one.
    const over = shape?.past || req.size || (req.body?.length ?? 0) > limits.body_bytes ? overLimit(req, limits, shape) : undefined;
    if (over) {
      const early = rawReply(req, path) ?? over;
      if (API_ROUTES[path]) journal.add(refusedEntry(req, method, early), path === CHAT_PATH ? req.body : undefined, { past: true, size: req.size });
      return withCors(req, early, config.cors);
    }
    if (path === JOURNAL_PATH) return withCors(req, journalRoute(journal, req.path, method), config.cors);
    if (path === CONTROL_PATH || path.startsWith(`${CONTROL_PATH}/`)) return withCors(req, controlRoute(control, req, path, method), config.cors);

    let faults: readonly SelectedFault[];
    try {
      faults = selectFaults(req, path);
    } catch (e) {
      return withCors(req, errorReply(400, `${FAULT_HEADER}: ${(e as Error).message}`, 'invalid_request_error', 'unknown_fault'), config.cors);
    }
    // Counted here, before routing: a setting for "the next request" is spent by it, whatever it gets.
    const live = control.active && API_ROUTES[path] ? control.take(sender(req, path)) : undefined;
    // Every field from the start: each set later on a literal without it would change its shape.
    const trace: Trace = {
      key: undefined,
      scenario: undefined,
      faults: live?.faults.length ? [...faults, ...live.faults] : [...faults],
      stream: false,
      timing: undefined,
      split: undefined,
      content: undefined,
      model: undefined,
      parsed: undefined,
      read: undefined,
      text: undefined,
    };
    let r = req;
    const ctx = (params: Record<string, string>) => ({ config, params, state: faultState });
    // The control counts its own (a fault's `times` there is the setting's, not the header's).
    let active = faults.length ? faults.filter(due) : NO_FAULTS;
    if (live?.faults.length) active = [...active, ...live.faults];
    for (const f of active) if (f.fault.request) r = f.fault.request(r, ctx(f.params));
    if (r === req) trace.text = text;
    const before = trace.faults.length;
    let reply = route(r, path, method, trace, live);
    // A scenario may name faults of its own, found while routing.
    const all = trace.faults.length > before ? active.concat(trace.faults.slice(before).filter(due)) : active;
    for (const f of all) if (f.fault.reply) reply = f.fault.reply(reply, r, ctx(f.params));
    // Cut last, after the faults: a fault counts and rewrites whole events, as a client reads them.
    if (trace.split === 'bytes' && isStream(reply)) reply = { ...reply, stream: splitBytes(reply.stream) };

    journal.add(
      {
        method,
        path: req.path,
        key_id: trace.key?.id ?? null,
        scenario: trace.scenario ?? null,
        faults: all.length ? all.map((f) => f.ref) : NO_REFS,
        status: 'status' in reply ? reply.status : 0,
        stream: 'stream' in reply,
        timing: trace.timing ?? null,
        content: trace.content ?? null,
        model: trace.model ?? null,
        control: live ? live.touched : null,
      },
      path === CHAT_PATH ? r.body : undefined,
      // What the shape says holds for the body as sent, not for one a fault rewrote.
      { longText: r === req ? shape?.longText : undefined, parsed: trace.parsed, read: trace.read },
    );
    return corsOff ? reply : withCors(req, reply, config.cors);
  };

  /** A request refused before it was read: who sent it, and the refusal. */
  const refusedEntry = (req: MockRequest, method: string, reply: MockReply) => {
    const token = bearerToken(req.headers.authorization);
    return {
      method,
      path: req.path,
      key_id: (token === undefined ? undefined : keys.get(token)?.id) ?? null,
      scenario: null,
      faults: NO_REFS,
      status: 'status' in reply ? reply.status : 0,
      stream: false,
      timing: null,
      content: null,
      model: null,
      control: null,
    };
  };

  /** The request's key id and model, read only when a setting is scoped to one (and then once). */
  const sender = (req: MockRequest, path: string) => {
    let model: unknown = NOT_READ;
    return {
      chat: path === CHAT_PATH,
      keyId: () => {
        const token = bearerToken(req.headers.authorization);
        return token === undefined ? undefined : (keys.get(token) ?? opts.anyKey)?.id;
      },
      model: () => {
        if (model === NOT_READ) model = requestJson(req)?.model;
        return typeof model === 'string' ? model : undefined;
      },
    };
  };

  return { config, journal, control, handle };
}
