// One exchange with a real server turned into a scenario of the mock's configuration: the
// request's distinguishing parts as the match, the reply as it came (text in its chunks, calls,
// refusal, finish_reason, usage, pace), and every way the answer departs from the document.
import { validator } from '../../schemas/index.js';
import { parseSse } from '../../engine/sse.js';
import type { Scenario, ScenarioMatch, ScenarioReply } from '../config/types.js';
import type { ChatRequest } from '../core/generate.js';
import { lastUserText } from '../core/generate.js';
import { conversationOf, parametersOf } from '../core/scenarios.js';

export interface Exchange {
  request: ChatRequest;
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** When each read ended: its end offset in `body` and milliseconds since the request was sent. */
  reads: { end: number; ms: number }[];
  upstream: string;
  at: Date;
}

/** Reply headers worth replaying: what a client's retry logic reads. */
const KEPT_HEADERS = /^(retry-after|retry-after-ms|x-ratelimit-[a-z-]+)$/;
const validChunk = validator('chunk');
const validResponse = validator('response');
const validError = validator('error');
const UTF8 = new TextDecoder();

export function matchOf(req: ChatRequest): ScenarioMatch {
  const tools = (req.tools ?? []).map((t) => t.function?.name).filter((n): n is string => typeof n === 'string');
  return {
    model: req.model,
    stream: req.stream === true,
    tools: tools.length ? tools : false,
    ...(req.response_format?.type ? { response_format: req.response_format.type as ScenarioMatch['response_format'] } : {}),
    parameters: parametersOf(req),
    messages: conversationOf(req),
  };
}

export function capture(x: Exchange, name: string): Scenario {
  const drift: string[] = [];
  const reply = x.status >= 200 && x.status < 300 ? (isEventStream(x) ? fromStream(x, drift) : fromJson(x, drift)) : fromError(x, drift);
  return {
    name,
    match: matchOf(x.request),
    reply,
    recorded: { at: x.at.toISOString(), upstream: x.upstream, status: x.status, ...(drift.length ? { drift } : {}) },
  };
}

export function scenarioName(n: number, req: ChatRequest): string {
  const said = lastUserText(req).replace(/\s+/g, ' ').trim();
  return `recorded ${n}: ${req.model}${req.stream ? ', streamed' : ''}${said ? `, "${said.length > 40 ? `${said.slice(0, 40)}…` : said}"` : ''}`;
}

const isEventStream = (x: Exchange) => /^text\/event-stream/i.test(x.headers['content-type'] ?? '') || (x.request.stream === true && !/json/i.test(x.headers['content-type'] ?? ''));

function parseJson(x: Exchange, drift: string[]): unknown {
  try {
    return JSON.parse(UTF8.decode(x.body));
  } catch {
    drift.push(`the body is not JSON (${x.body.length} bytes)`);
    return undefined;
  }
}

function fromJson(x: Exchange, drift: string[]): ScenarioReply {
  const body = parseJson(x, drift) as { choices?: { message?: Record<string, unknown>; finish_reason?: string }[]; usage?: ScenarioReply['usage'] } | undefined;
  if (body === undefined) return { error: { status: 502, message: 'The recorded upstream answer was not JSON.' } };
  drift.push(...validResponse(body).errors);
  const choice = body.choices?.[0];
  const message = choice?.message ?? {};
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as { id?: string; function?: { name?: string; arguments?: string } }[]) : [];
  return {
    ...(typeof message.content === 'string' && (message.content !== '' || !calls.length) ? { text: message.content } : {}),
    ...(calls.length ? { tool_calls: calls.map((c) => ({ name: c.function?.name ?? '', arguments: c.function?.arguments ?? '', ...(c.id ? { id: c.id } : {}) })) } : {}),
    ...(typeof message.refusal === 'string' ? { refusal: message.refusal } : {}),
    ...finishAndUsage(choice?.finish_reason, body.usage),
    delays_ms: [x.reads.at(-1)?.ms ?? 0],
  };
}

function fromStream(x: Exchange, drift: string[]): ScenarioReply {
  const parsed = parseSse(x.body);
  for (const f of parsed.findings) if (f.kind === 'invalid-utf8' || f.kind === 'unterminated-event') drift.push(`stream: ${f.kind} at byte ${f.offset} [6]`);
  const chunks: string[] = [];
  const delays: number[] = [];
  const calls: { id?: string; name: string; arguments: string }[] = [];
  let refusal: string | undefined;
  let finish: string | undefined;
  let usage: ScenarioReply['usage'];
  let done = false;
  let last = 0;
  let first: number | undefined;
  // Each event arrived when the read holding its last byte did.
  const arrived = (end: number) => x.reads.find((r) => r.end >= end)?.ms ?? x.reads.at(-1)?.ms ?? 0;
  parsed.events.forEach((e, i) => {
    if (e.data === '[DONE]') {
      done = true;
      return;
    }
    let chunk: { choices?: { delta?: Record<string, unknown>; finish_reason?: string | null }[]; usage?: ScenarioReply['usage'] | null };
    try {
      chunk = JSON.parse(e.data);
    } catch {
      drift.push(`event ${i}: data is not JSON [4.1]`);
      return;
    }
    drift.push(...validChunk(chunk).errors.map((v) => `event ${i}: ${v}`));
    const ms = arrived(e.end);
    first ??= ms;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    if (choice.finish_reason) finish = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      delays.push(chunks.length ? ms - last : ms);
      chunks.push(delta.content);
      last = ms;
    }
    if (typeof delta.refusal === 'string') refusal = (refusal ?? '') + delta.refusal;
    for (const t of Array.isArray(delta.tool_calls) ? (delta.tool_calls as { index?: number; id?: string; function?: { name?: string; arguments?: string } }[]) : []) {
      const call = (calls[t.index ?? 0] ??= { name: '', arguments: '' });
      if (t.id) call.id = t.id;
      // The name comes whole in a call's first delta; a server that repeats it later is not appending.
      if (t.function?.name && !call.name) call.name = t.function.name;
      if (t.function?.arguments) call.arguments += t.function.arguments;
    }
  });
  if (!done) drift.push('stream: it did not end with data: [DONE] [6]');
  return {
    ...(chunks.length || (!calls.length && refusal === undefined) ? { chunks: chunks.length ? chunks : [''] } : {}),
    ...(calls.length ? { tool_calls: calls.map((c) => ({ name: c.name, arguments: c.arguments, ...(c.id ? { id: c.id } : {}) })) } : {}),
    ...(refusal !== undefined ? { refusal } : {}),
    ...finishAndUsage(finish, usage ?? undefined),
    delays_ms: delays.length ? delays : [first ?? 0],
  };
}

function finishAndUsage(finish: string | null | undefined, usage: ScenarioReply['usage'] | undefined): Partial<ScenarioReply> {
  const known = ['stop', 'length', 'tool_calls', 'content_filter'];
  return {
    ...(finish && known.includes(finish) ? { finish_reason: finish as ScenarioReply['finish_reason'] } : {}),
    ...(usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number' && typeof usage.total_tokens === 'number' ? { usage } : {}),
  };
}

function fromError(x: Exchange, drift: string[]): ScenarioReply {
  const body = parseJson(x, drift) as { error?: { message?: unknown; type?: unknown; code?: unknown } } | undefined;
  if (body !== undefined) drift.push(...validError(body).errors.map((v) => `${v} (a convention)`));
  const err = body?.error;
  const headers = Object.fromEntries(Object.entries(x.headers).filter(([k]) => KEPT_HEADERS.test(k)));
  return {
    error: {
      status: x.status,
      message: typeof err?.message === 'string' ? err.message : `The upstream answered ${x.status}.`,
      ...(typeof err?.type === 'string' ? { type: err.type } : {}),
      ...(typeof err?.code === 'string' ? { code: err.code } : {}),
      ...(Object.keys(headers).length ? { headers } : {}),
    },
  };
}
