// Faults that prove the verdicts a CI gate trusts (issue 25): a server that says it cannot serve
// (503, an error event mid-stream) breaks no rule of the check it answers, and is counted once; a
// deviation that does not show again when the request is sent again is flaky, not a failure.
import type { MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { FRONTEND } from './frontend.js';
import { isBasic } from './chat.js';
import { isChat, onAnswers, onCompletion, requestJson, withJson } from './rewrite.js';
import { STOP_FAULTS } from './stop.js';
import { CHAT_FAULTS } from './chat.js';
import { errorReply } from '../errors.js';

const frontend = (name: string) => FRONTEND.find((f) => f.name === name)!;

/** The kit's essay: a long answer asked with the smallest max_tokens (chat.max-tokens). */
const isEssay = (req: MockRequest) => {
  const b = isChat(req) ? requestJson(req) : undefined;
  const messages = Array.isArray(b?.messages) ? b.messages : [];
  return messages.length === 1 && /^write a long, detailed essay/i.test(String((messages[0] as { content?: unknown })?.content));
};

const streamed = (req: MockRequest) => requestJson(req)?.stream === true;

/** The stop suite's reproducible request, without stop: the answer the sequences are picked from. */
const isUnstoppedRepeat = (req: MockRequest) => {
  const b = isChat(req) ? requestJson(req) : undefined;
  const first = Array.isArray(b?.messages) ? (b.messages[0] as { content?: unknown }) : undefined;
  return !!b && b.stop === undefined && /^repeat exactly/i.test(String(first?.content));
};

/** A frontend failure served to the requests `on` picks: the failure a client sees, as a proof. */
function busy(name: string, description: string, on: (req: MockRequest) => boolean, failure: Fault): Fault {
  return {
    name,
    description,
    fails: ['chat.served-when-valid'],
    reply: (r, req, ctx) => (on(req) ? failure.reply!(r, req, ctx) : r),
  };
}

const fiveAccepted = STOP_FAULTS.find((f) => f.name === 'stop-five-accepted')!;
const chat = (name: string) => CHAT_FAULTS.find((f) => f.name === name)!;
const maxTokensIgnored = chat('chat-max-tokens-ignored');
const usageMissing = chat('chat-usage-missing');
const fiveStops = (req: MockRequest) => {
  const stop = requestJson(req)?.stop;
  return Array.isArray(stop) && stop.length === 5;
};

export const VERDICT_FAULTS: Fault[] = [
  {
    // An owner owns its part on every answer of the run: the tool suite reads no usage, chat.usage does.
    name: 'chat-usage-missing-on-tool-calls',
    description: 'An answer (not streamed) that calls a tool carries no usage; every other answer does',
    fails: ['chat.usage'],
    reply: onCompletion((b) => {
      if (b.choices?.some((c: { message?: { tool_calls?: unknown[] } }) => c.message?.tool_calls?.length)) delete b.usage;
    }),
  },
  {
    // The checks that need the finish of a capped answer are blocked by chat.finish-reason, which
    // reads only the basic answer of its own: the runner holds it to the capped one too.
    name: 'chat-finish-reason-null-when-cut',
    description: 'An answer cut by max_tokens ends with finish_reason null, on both paths',
    fails: ['chat.finish-reason'],
    reply: onAnswers((answer) => {
      for (const c of answer.choices ?? []) if (c.finish_reason === 'length') c.finish_reason = null;
    }),
  },
  {
    // A rule judged with less where less proves the breach: words past the cap show it, usage or not.
    name: 'chat-max-tokens-ignored-no-usage',
    description: 'max_tokens is ignored and the response carries no usage: the words of the answer alone show the cap broken',
    fails: [...new Set([...maxTokensIgnored.fails, ...usageMissing.fails])],
    request: maxTokensIgnored.request,
    reply: usageMissing.reply,
  },
  {
    // An answer served where a refusal was due is still a chat completion, held to every rule.
    name: 'stop-five-accepted-usage-missing',
    description: 'Five stop sequences are accepted, and that answer (not streamed) carries no usage',
    fails: [...new Set([...fiveAccepted.fails, ...usageMissing.fails])],
    request: (req, ctx) => (fiveStops(req) ? { ...fiveAccepted.request!(req, ctx), headers: { ...req.headers, 'x-conformance-five': '1' } } : req),
    reply: (r, req, ctx) => (req.headers['x-conformance-five'] && !streamed(req) ? usageMissing.reply!(r, req, ctx) : r),
  },
  {
    // A parameter the server refuses on every request breaks the check that owns it, and blinds the
    // checks that sent it only to share one request: they are blocked by its owner, not failed.
    name: 'stream-options-refused',
    description: 'Every request that would be served and carries stream_options is refused with a 400 naming it (param "stream_options")',
    fails: ['usage.stream-present'],
    reply: (r, req) =>
      'status' in r && r.status >= 200 && r.status < 300 && requestJson(req)?.stream_options !== undefined
        ? errorReply(400, 'Unrecognized request argument supplied: stream_options', 'invalid_request_error', null, 'stream_options')
        : r,
  },
  {
    // Whether five sequences are refused does not depend on where a sequence cuts: an answer that
    // does not reproduce blinds the cut rules, not this one.
    name: 'stop-five-accepted-answer-varies',
    description: 'Five stop sequences are accepted, and the answer the stop rules would pick sequences from differs each time it is asked',
    fails: fiveAccepted.fails,
    request: fiveAccepted.request,
    reply: (r, req, ctx) => {
      if (!isUnstoppedRepeat(req) || streamed(req)) return r;
      const n = ((ctx.state?.get('answer-varies') as number | undefined) ?? 0) + 1;
      ctx.state?.set('answer-varies', n);
      return withJson(r, (b) => {
        const m = b.choices?.[0]?.message;
        if (m && typeof m.content === 'string') m.content = `${m.content} (take ${n})`;
      });
    },
  },
  {
    name: 'flaky-usage-missing-once',
    description: 'The first basic answer, not streamed, comes without usage; every later one has it, as a server under a passing glitch',
    fails: [],
    flakes: ['chat.usage'],
    reply: (r, req, ctx) => {
      if (!isBasic(req) || streamed(req) || ctx.state?.get('flaky-usage-missing-once')) return r;
      ctx.state?.set('flaky-usage-missing-once', true);
      return withJson(r, (b) => {
        delete b.usage;
      });
    },
  },
  busy('busy-basic-503', 'The basic request, not streamed, answered 503 with Retry-After: busy, not wrong', (req) => isBasic(req) && !streamed(req), frontend('unavailable')),
  busy(
    'busy-essay-stream-error',
    'The streamed essay ends in an error event after its first chunks, as an engine out of context does',
    (req) => isEssay(req) && streamed(req),
    frontend('stream-error'),
  ),
];
