// What a failed flow's own answers broke: each chat answer the client read, judged with the rules of
// `run` as a load judges each answer of a sweep (a check's `onEach`), on the flow's model and way. So
// a failed flow is blamed on the rules its own answers broke, not on every rule it rests on that failed
// somewhere in the run. And what no rule of the document covers is said as what it is: a requirement
// outside the document (a client's own check of tool arguments against the parameters its request
// declared), or a precondition the flow never reached (a model that did not stop within the cap, an
// answer the kit's own limit cut). Judged where the answers are: in the clients' process.
import type { RequestSpec } from '../engine/http.js';
import type { Exchange } from '../engine/exchanges.js';
import { validateWith, validator } from '../schemas/index.js';
import { FIELDS } from '../suites/fields.js';
import { readAnswer } from '../suites/answer.js';
import { onEachOf, type Kind, type Known, type OnEach } from '../suites/each.js';
import { CHECKS } from '../suites/index.js';
import type { OwnAnswer } from './recorder.js';

export interface OwnJudgement {
  /** The rules its own answers broke, by check id, with what was seen. */
  broke: { id: string; why: string }[];
  /** A requirement outside the document that its answers did not meet. */
  outside?: string;
  /** What the flow never reached, and why. */
  precondition?: string;
}

const RULES: { id: string; onEach: OnEach; reads: readonly string[] }[] = CHECKS.flatMap((c) => {
  const onEach = onEachOf(c.id);
  return onEach ? [{ id: c.id, onEach, reads: c.reads ?? [] }] : [];
});

/** The check whose rule the basic request's being served is (chat.role.user): a client's request that
 * is about a field of its own is served or not as that field's owner says (fields.ts: stop, tools,
 * response_format, stream: false said aloud). */
const SERVED = 'chat.role.user';
function servedOwner(body: Record<string, unknown>, a: OwnAnswer): string {
  // A stream where a JSON answer was said aloud (stream: false) is that field's before any other's.
  if (body.stream === false && /event-stream/i.test(a.headers['content-type'] ?? '')) return FIELDS.stream.owner(false);
  const subject = Object.keys(body).find((k) => FIELDS[k]?.kind === 'optional' && !FIELDS[k].convenience);
  return subject ? FIELDS[subject].owner(body[subject]) : SERVED;
}

const validRequest = validator('request');

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
const isChat = (r: RequestSpec) => r.method === 'POST' && r.url.split('?')[0].endsWith('/chat/completions');
const bodyOf = (r: RequestSpec): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(r.body ?? '');
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
};

/** The kinds of the kit's own requests a client's request is like, by what it asks: the rules about
 * that kind read it. Only the plain question is like the kit's own (its rules hold on any answer that
 * ends by itself); a tool call's, a structured answer's or a stop sequence's rules are about the kit's
 * own tools, schema and unstopped answer, which a client's request does not carry: their judgement is
 * the run's. The rules about every kind read every answer. */
function kindsOf(body: Record<string, unknown>): Kind[] {
  const plain = !(Array.isArray(body.tools) && body.tools.length) && body.response_format === undefined && body.stop === undefined;
  return plain ? ['basic'] : [];
}

/** Each answer of the flow the client read whole, as an exchange the suites' reader takes. */
function asExchange(a: OwnAnswer, i: number): Exchange {
  return {
    label: `the client's request ${i + 1}`,
    request: a.request,
    status: a.status,
    headers: a.headers,
    body: a.body,
    bytesRead: a.body.length,
    complete: true,
    durationMs: a.durationMs,
    rateLimited: false,
    retries: 0,
  };
}

export function judgeOwn(answers: readonly OwnAnswer[], known: Known): OwnJudgement {
  const broke = new Map<string, string>();
  let outside: string | undefined;
  let precondition: string | undefined;
  answers.forEach((a, i) => {
    if (!isChat(a.request)) return;
    if (a.cut) precondition ??= `the kit's own limit cut an answer (${a.cut === 'cap' ? '--max-body' : a.cut === 'timeout' ? 'the idle limit' : '--timeout'}): what it is about was never reached`;
    // What the client stopped reading, or never read whole, no rule reads.
    if (a.stoppedByClient || !a.whole || a.status === undefined || a.status < 200 || a.status >= 300) return;
    const body = bodyOf(a.request);
    // Only an answer the document owes: a request it lets a server refuse (five stop sequences) is
    // no flow's failure by its answer's shape.
    if (!body || !validRequest(body).ok) return;
    const stream = body.stream === true;
    const answer = readAnswer(asExchange(a, i), stream);
    const kinds = kindsOf(body);
    // Where a stop sequence may have ended the answer, no rule of its end can be judged without the
    // unstopped answer the run worked out.
    const ends = body.stop === undefined;
    for (const { id, onEach, reads } of RULES) {
      const owner = id === SERVED ? servedOwner(body, a) : id;
      if (broke.has(owner)) continue;
      if (onEach.kinds && !onEach.kinds.some((k) => kinds.includes(k))) continue;
      if (onEach.way && (onEach.way === 'stream') !== stream) continue;
      if (onEach.asked && !onEach.asked(body)) continue;
      if (!ends && reads.includes('finish_reason')) continue;
      const v = onEach.judge(answer, known);
      if (v.outcome === 'fail') broke.set(owner, v.message ?? 'broken');
    }
    outside ??= argumentsOutside(body, answer.toolCalls);
    if (answer.finishReason === 'length' && typeof body.max_tokens === 'number')
      precondition ??= `the model did not stop within max_tokens ${body.max_tokens} (finish_reason "length"): the answer the flow needs ends by itself`;
  });
  return { broke: [...broke].map(([id, why]) => ({ id, why })), ...(outside ? { outside } : {}), ...(precondition ? { precondition } : {}) };
}

/** Tool arguments that do not match the parameters the request declared for the function: what a
 * client checks on its own (LangChain parses them with the tool's schema); the document does not show
 * tool definitions, so this is a requirement outside it. */
function argumentsOutside(body: Record<string, unknown>, calls: readonly { name?: unknown; arguments: string }[]): string | undefined {
  if (!Array.isArray(body.tools) || !calls.length) return undefined;
  for (const call of calls) {
    const declared = body.tools.find((t) => isObject(t) && isObject(t.function) && t.function.name === call.name) as { function: { parameters?: unknown } } | undefined;
    if (!declared?.function.parameters) continue;
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      continue;
    }
    const v = validateWith(declared.function.parameters, args);
    if (!v.ok && !v.schemaError)
      return `the arguments of the call to ${String(call.name)} (${call.arguments.slice(0, 120)}) do not match the parameters the request declared for it (${v.errors.slice(0, 2).join(', ')}): a client's own check; the document does not show tool definitions`;
  }
  return undefined;
}
