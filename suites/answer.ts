// What a chat request got back, read the same way on both paths (one JSON body, or a stream of
// chunks), so a rule is written once: a check judges its rule only on a valid answer, and counts a
// refusal only when the answer is one.
import { validator } from '../schemas/index.js';
import { catalog, choicesOf, cutShort, declaredParameters, describe, errorText, is2xx, is4xx, readStream, type StreamRead } from './api.js';
import { fail, notTested, type Verdict } from './harness/check.js';
import type { CheckContext } from './harness/runner.js';
import type { ApiPath } from './paths.js';
import { bodyJson, type Exchange } from './harness/exchanges.js';

const validResponse = validator('response');
const validError = validator('error');
const validChunk = validator('chunk');

export interface ToolCallRead {
  index: number;
  id?: unknown;
  name?: unknown;
  /** The argument text, joined from its fragments on a stream. */
  arguments: string;
  /** As received on a JSON answer, so a follow-up turn sends it back with any vendor fields. */
  raw?: Record<string, unknown>;
}

/** A valid answer, whichever path it came by. */
export interface Answer {
  stream: boolean;
  ex: Exchange;
  /** The first choice's text: the message's content, or the content deltas joined. */
  content: string;
  toolCalls: ToolCallRead[];
  /** The first choice's finish_reason: on a stream, the last non-null one. */
  finishReason: unknown;
  /** The usage object: the body's, or the (last) usage chunk's. */
  usage?: Record<string, unknown>;
  /** `model` and `created` of the body, or of every chunk. */
  models: unknown[];
  created: unknown[];
  /** The JSON body (JSON path). */
  body?: Record<string, unknown>;
  /** The stream as read (stream path). */
  read?: StreamRead;
}

export type Reading = { answer: Answer; problem?: undefined } | { answer?: undefined; problem: string };

/** A chat answer on the path it was asked on, or why it is not a valid one: refused, cut, empty,
 * not a completion of 2.3, or not a complete stream of valid chunks. */
export function readAnswer(ex: Exchange, stream: boolean): Reading {
  if (!is2xx(ex)) return { problem: `the request was not served: ${describe(ex)}${errorText(ex)}` };
  const cut = cutShort(ex);
  if (cut) return { problem: cut };
  return stream ? readStreamed(ex) : readJson(ex);
}

function readJson(ex: Exchange): Reading {
  const json = bodyJson(ex);
  if (!json.ok) return { problem: json.error };
  const v = validResponse(json.value);
  if (!v.ok) return { problem: `the answer is not a chat completion of 2.3: ${v.errors.join('; ')}` };
  const body = json.value as Record<string, unknown>;
  const choice = (body.choices as Record<string, unknown>[])[0];
  const message = choice.message as { content: string; tool_calls?: unknown };
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Record<string, unknown>[]) : [];
  return {
    answer: {
      stream: false,
      ex,
      content: message.content,
      toolCalls: calls.map((raw, index) => {
        const fn = raw.function as { name?: unknown; arguments?: unknown };
        return { index, id: raw.id, name: fn.name, arguments: String(fn.arguments), raw };
      }),
      finishReason: choice.finish_reason,
      usage: body.usage as Record<string, unknown>,
      models: [body.model],
      created: [body.created],
      body,
    },
  };
}

function readStreamed(ex: Exchange): Reading {
  const read = readStream(ex);
  if (!read.payloads.length) return { problem: `no server-sent event carried data (${ex.body.length ? `${ex.body.length} bytes, content-type ${ex.headers['content-type'] ?? 'none'}` : 'the body is empty'})` };
  const notJson = read.payloads.find((p) => p.error !== undefined);
  if (notJson) return { problem: `event ${notJson.at} of the stream is not JSON (${notJson.error})` };
  const invalid = read.chunks.map(({ at, chunk }) => ({ at, v: validChunk(chunk) })).find((c) => !c.v.ok);
  if (invalid) return { problem: `event ${invalid.at} of the stream is not a valid chunk: ${invalid.v.errors.join('; ')}` };
  if (!read.chunks.length) return { problem: 'the stream carried no chunk' };
  let content = '';
  let finishReason: unknown;
  let usage: Record<string, unknown> | undefined;
  const calls = new Map<number, ToolCallRead>();
  for (const { chunk } of read.chunks) {
    if (chunk.usage && typeof chunk.usage === 'object') usage = chunk.usage as Record<string, unknown>;
    for (const choice of choicesOf(chunk)) {
      if (choice.index !== 0) continue;
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) finishReason = choice.finish_reason;
      const delta = (choice.delta ?? {}) as { content?: unknown; tool_calls?: unknown };
      if (typeof delta.content === 'string') content += delta.content;
      if (!Array.isArray(delta.tool_calls)) continue;
      for (const d of delta.tool_calls as { index: number; id?: unknown; function?: { name?: unknown; arguments?: unknown } | null }[]) {
        let call = calls.get(d.index);
        if (!call) calls.set(d.index, (call = { index: d.index, arguments: '' }));
        if (call.id === undefined && d.id) call.id = d.id;
        if (call.name === undefined && d.function?.name) call.name = d.function.name;
        if (typeof d.function?.arguments === 'string') call.arguments += d.function.arguments;
      }
    }
  }
  return {
    answer: {
      stream: true,
      ex,
      content,
      toolCalls: [...calls.values()].sort((a, b) => a.index - b.index),
      finishReason,
      usage,
      models: read.chunks.map((c) => c.chunk.model),
      created: read.chunks.map((c) => c.chunk.created),
      read,
    },
  };
}

/** How an answer to a request that must not be served reads. A refusal is a 4xx that says the
 * request was wrong; a missing route or model (404, 405), a redirect, a server error or a dropped
 * connection is no refusal, and neither is a 200 that opens a stream to carry an error. */
export type Refusal = { kind: 'refused' } | { kind: 'served'; why: string } | { kind: 'neither'; why: string };

export function refusalOf(ex: Exchange, opts: { notFoundRefuses?: boolean } = {}): Refusal {
  const s = ex.status;
  if (s === undefined) return { kind: 'neither', why: `no answer: ${describe(ex)}` };
  if (is2xx(ex)) return { kind: 'served', why: `it was served (${describe(ex)})` };
  if (s >= 300 && s < 400) return { kind: 'neither', why: `status ${s} is a redirect${ex.headers.location ? ` to ${ex.headers.location}` : ''}, not a refusal` };
  if ((s === 404 && !opts.notFoundRefuses) || s === 405) return { kind: 'neither', why: `status ${s} says the route${s === 404 ? ' or model' : ''} is missing, not that the request was refused` };
  if (s === 429) return { kind: 'neither', why: 'status 429 is a rate limit, not a refusal' };
  if (s >= 400 && s < 500) return { kind: 'refused' };
  return { kind: 'neither', why: `status ${s} is a server error, not a refusal${errorText(ex)}` };
}

/** The answer to a request the document allows, or the verdict that ends the check: a request
 * carrying an optional feature (tools, response_format) that the model refuses with a JSON error is
 * not-tested, unless the catalog declares the feature for it (4.1 leaves unsupported parameters
 * open); any other problem fails the check, since the request was valid. */
export async function validAnswer(ctx: CheckContext, ex: Exchange, path: ApiPath, what: string, feature?: 'tools' | 'response_format'): Promise<{ answer: Answer; verdict?: undefined } | { answer?: undefined; verdict: Verdict }> {
  const read = readAnswer(ex, !!path.stream);
  if (read.answer) return { answer: read.answer };
  if (feature && is4xx(ex) && bodyJson(ex).ok && errorText(ex)) {
    const declared = path.model !== undefined && feature in (declaredParameters((await catalog(ctx)).entries.get(path.model)) ?? {});
    if (!declared) return { verdict: notTested(`the model refuses ${feature}${errorText(ex)}, and no catalog entry declares it; 4.1 leaves unsupported parameters open`) };
  }
  return { verdict: fail(`${what} got no valid answer: ${read.problem}`) };
}

/** What keeps an error answer's body from the convention ({"error": {"message": ...}}), or nothing. */
export function errorBodyProblem(ex: Exchange): string | undefined {
  const json = bodyJson(ex);
  if (!json.ok) return `the error body: ${json.error}`;
  const v = validError(json.value);
  return v.ok ? undefined : `the error body does not match the convention: ${v.errors.join(', ')}`;
}
