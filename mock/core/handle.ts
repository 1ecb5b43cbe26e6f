// The mock's core: one plain request in, one plain reply (JSON, or a stream of frames) out.
// Routing and auth live here; the transports know nothing of the API.
import { DEFAULT_CONFIG } from '../config/default.js';
import type { KeyDef, MockConfig, ModelDef } from '../config/types.js';
import { completionBody, streamChunks } from './chunks.js';
import { errorReply } from './errors.js';
import { generate, type ChatRequest } from './generate.js';
import { catalogDocument, modelList } from './models.js';
import { faultNamed, type Fault } from './faults/index.js';
import { hash } from './random.js';
import { frames } from './sse.js';
import type { MockReply, MockRequest } from './types.js';
import { parameterProblem, requestProblem } from './validate.js';

export interface Mock {
  readonly config: MockConfig;
  handle(req: MockRequest): MockReply;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' };
const BEARER = /^Bearer +(\S+)\s*$/;

export interface MockOptions {
  /** Faults (or their names) applied to every request, in order. */
  faults?: readonly (Fault | string)[];
}

export function createMock(config: MockConfig = DEFAULT_CONFIG, opts: MockOptions = {}): Mock {
  const keys = new Map(config.keys.map((k) => [k.key, k]));
  const models = new Map(config.models.map((m) => [m.id, m]));
  // Bodies that never change are serialized once, not per request.
  const lists = new Map(config.keys.map((k) => [k.id, JSON.stringify(modelList(config, k))]));
  const catalog = JSON.stringify(catalogDocument(config));
  let served = 0;

  const authenticate = (req: MockRequest): KeyDef | MockReply => {
    const header = req.headers.authorization;
    if (!header) return errorReply(401, 'Missing Authorization header: send Authorization: Bearer <API_KEY>.', 'invalid_request_error', 'missing_api_key');
    const m = BEARER.exec(header);
    // Never echo what was sent: a refusal must not repeat a key.
    if (!m) return errorReply(401, 'Malformed Authorization header: expected Bearer <API_KEY>.', 'invalid_request_error', 'invalid_api_key');
    return keys.get(m[1]) ?? errorReply(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
  };

  const chat = (req: MockRequest, key: KeyDef): MockReply => {
    let body: unknown;
    try {
      const text = typeof req.body === 'string' ? req.body : new TextDecoder('utf-8', { fatal: true }).decode(req.body ?? new Uint8Array());
      body = JSON.parse(text);
    } catch (e) {
      return errorReply(400, `The request body is not valid JSON: ${(e as Error).message}`, 'invalid_request_error', 'invalid_json');
    }
    const problem = requestProblem(body);
    if (problem) return errorReply(400, problem.message, 'invalid_request_error', 'invalid_request', problem.param ?? null);
    const request = body as ChatRequest & Record<string, unknown>;
    const model: ModelDef | undefined = key.models.includes(request.model) ? models.get(request.model) : undefined;
    if (!model)
      return errorReply(404, `The model '${request.model}' does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found', 'model');
    const range = parameterProblem(request, model);
    if (range) return errorReply(400, range.message, 'invalid_request_error', 'unsupported_value', range.param);

    const completion = generate(request, model);
    const meta = {
      id: `chatcmpl-${hash(JSON.stringify(request.messages)).toString(36)}${(++served).toString(36)}`,
      created: Math.floor(Date.now() / 1000),
      model: model.id,
    };
    if (request.stream === true) {
      const chunks = streamChunks(completion, meta, request.stream_options?.include_usage === true);
      return { status: 200, headers: SSE_HEADERS, stream: frames(chunks) };
    }
    return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(completionBody(completion, meta)) };
  };

  const handle = (req: MockRequest): MockReply => {
    const path = req.path.split('?')[0].replace(/\/+$/, '') || '/';
    const method = req.method.toUpperCase();
    const route = ROUTES[path];
    if (!route) return errorReply(404, `No route for ${method} ${path}.`, 'invalid_request_error', 'not_found');
    if (method !== route) return { ...errorReply(405, `${path} takes ${route}, not ${method}.`, 'invalid_request_error', 'method_not_allowed'), headers: { ...JSON_HEADERS, allow: route } };
    if (path === '/models.json') return { status: 200, headers: JSON_HEADERS, body: catalog };
    const key = authenticate(req);
    if (!('key' in key)) return key;
    if (path === '/v1/models') return { status: 200, headers: JSON_HEADERS, body: lists.get(key.id)! };
    return chat(req, key);
  };

  const faults = (opts.faults ?? []).map((f) => (typeof f === 'string' ? faultNamed(f) : f));
  if (!faults.length) return { config, handle };
  const ctx = { config };
  return {
    config,
    handle(req) {
      let r = req;
      for (const f of faults) if (f.request) r = f.request(r, ctx);
      let reply = handle(r);
      for (const f of faults) if (f.reply) reply = f.reply(reply, r, ctx);
      return reply;
    },
  };
}

const ROUTES: Record<string, string> = {
  '/v1/chat/completions': 'POST',
  '/v1/models': 'GET',
  '/models.json': 'GET',
};
