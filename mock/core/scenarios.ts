// Scripted replies: an ordered list of rules; the first whose every condition holds decides.
import type { ConversationMessage, Scenario, ScenarioMatch } from '../config/types.js';
import { answersToolResult, lastUserText, type ChatRequest } from './generate.js';
import { contentText } from './tokens.js';

/** `/regex/flags` is a regular expression, as written (`/hello/i` for any case); anything else a
 * substring, in any case: `hello` matches "Hello!", as a person typing to a chat UI writes it. */
export function textMatcher(pattern: string): (text: string) => boolean {
  const m = /^\/(.*)\/([dgimsuvy]*)$/s.exec(pattern);
  if (m) {
    const re = new RegExp(m[1], m[2].replace(/[gy]/g, ''));
    return (t) => re.test(t);
  }
  const folded = pattern.toLowerCase();
  return (t) => t.toLowerCase().includes(folded);
}

type Condition = (req: ChatRequest, keyId: string) => boolean;

/** Worked out once per request: a replay file's every recording compares against it. */
const conversations = new WeakMap<ChatRequest, ConversationMessage[]>();

/** The conversation as a recording keeps it: roles, texts and calls, without the ids a server
 * made up (a replay makes its own, and the next turn sends those back). */
export function conversationOf(req: ChatRequest): ConversationMessage[] {
  let known = conversations.get(req);
  if (!known) conversations.set(req, (known = normalized(req)));
  return known;
}

function normalized(req: ChatRequest): ConversationMessage[] {
  return req.messages.map((m) => {
    const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as { function?: { name?: string; arguments?: string } }[]) : [];
    return {
      role: m.role,
      content: m.content == null ? null : contentText(m.content),
      ...(calls.length ? { tool_calls: calls.map((c) => ({ name: c.function?.name ?? '', arguments: c.function?.arguments ?? '' })) } : {}),
    };
  });
}

const sameMessage = (a: ConversationMessage, b: ConversationMessage) =>
  a.role === b.role && (a.content ?? null) === (b.content ?? null) && JSON.stringify(a.tool_calls ?? []) === JSON.stringify(b.tool_calls ?? []);

/** The request fields, besides the conversation, that change what a model answers: a recording
 * keeps those the request sent, and matches only a request that sends the same (and no other). */
const SHAPING_PARAMETERS = [
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'temperature',
  'top_p',
  'seed',
  'n',
  'tool_choice',
  'parallel_tool_calls',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'reasoning_effort',
  'response_format',
] as const;

export function parametersOf(req: ChatRequest): Record<string, unknown> {
  const body = req as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of SHAPING_PARAMETERS) if (body[name] !== undefined && body[name] !== null) out[name] = body[name];
  return out;
}

/** The first shaping parameter whose value differs from the recorded one (absent and null alike). */
function parametersDiffer(want: Record<string, unknown>): (req: ChatRequest) => string | undefined {
  return (req) => {
    const got = parametersOf(req);
    for (const name of SHAPING_PARAMETERS) if (JSON.stringify(got[name] ?? null) !== JSON.stringify(want[name] ?? null)) return `parameters.${name}`;
    return undefined;
  };
}

/** Where a conversation departs from the one recorded, for the strict-scenario error. */
function conversationDiffers(want: ConversationMessage[]): (req: ChatRequest) => string | undefined {
  return (req) => {
    const got = conversationOf(req);
    const at = want.findIndex((m, i) => !got[i] || !sameMessage(m, got[i]));
    if (at >= 0) return got[at] ? `messages[${at}] (${got[at].role})` : `messages (${got.length} sent, ${want.length} recorded)`;
    return got.length === want.length ? undefined : `messages (${got.length} sent, ${want.length} recorded)`;
  };
}

/** The tool message that ends the conversation, with the name of the function its call named. */
function lastToolResult(req: ChatRequest): { name?: string; content: string } | undefined {
  if (!answersToolResult(req)) return undefined;
  const last = req.messages[req.messages.length - 1];
  const calls = req.messages.flatMap((m) => (m.role === 'assistant' && Array.isArray(m.tool_calls) ? (m.tool_calls as { id?: string; function?: { name?: string } }[]) : []));
  return { name: calls.find((c) => c.id === last.tool_call_id)?.function?.name, content: contentText(last.content) };
}

/** Any tool result (true), none (false), or one of a tool, saying something: an agent loop scripted turn by turn. */
function toolResult(want: NonNullable<ScenarioMatch['tool_result']>): Condition {
  if (typeof want === 'boolean') return (r) => answersToolResult(r) === want;
  const says = want.content !== undefined ? textMatcher(want.content) : () => true;
  return (r) => {
    const got = lastToolResult(r);
    return !!got && (want.name === undefined || got.name === want.name) && says(got.content);
  };
}

/** A condition's name, its test, and (where the name alone says too little) what differs. */
type Rule = [keyof ScenarioMatch, Condition, ((req: ChatRequest) => string | undefined)?];

function conditions(match: ScenarioMatch): Rule[] {
  const out: Rule[] = [];
  if (match.model !== undefined) out.push(['model', (r) => r.model === match.model]);
  if (match.key !== undefined) out.push(['key', (_r, k) => k === match.key]);
  if (match.last_user !== undefined) {
    const test = textMatcher(match.last_user);
    out.push(['last_user', (r) => test(lastUserText(r))]);
  }
  if (match.system !== undefined) {
    const test = textMatcher(match.system);
    out.push(['system', (r) => r.messages.some((m) => (m.role === 'system' || m.role === 'developer') && test(contentText(m.content)))]);
  }
  if (match.tools !== undefined) {
    const want = match.tools;
    out.push([
      'tools',
      (r) => {
        const names = (r.tools ?? []).map((t) => t.function.name);
        return Array.isArray(want) ? want.every((n) => names.includes(n)) : want === names.length > 0;
      },
    ]);
  }
  if (match.tool_result !== undefined) out.push(['tool_result', toolResult(match.tool_result)]);
  if (match.response_format !== undefined) out.push(['response_format', (r) => (r.response_format?.type ?? 'text') === match.response_format]);
  if (match.stream !== undefined) out.push(['stream', (r) => (r.stream === true) === match.stream]);
  if (match.parameters !== undefined) {
    const differs = parametersDiffer(match.parameters);
    out.push(['parameters', (r) => differs(r) === undefined, differs]);
  }
  if (match.messages !== undefined) {
    const differs = conversationDiffers(match.messages);
    out.push(['messages', (r) => differs(r) === undefined, differs]);
  }
  return out;
}

export interface Matcher {
  /** The first scenario that matches, or the closest one and what it differs in. */
  find(req: ChatRequest, keyId: string): { scenario: Scenario } | { scenario?: undefined; closest?: Scenario; differs: string[] };
}

/** Compiled once per configuration: regular expressions are built at start-up, not per request. */
export function compileScenarios(scenarios: readonly Scenario[]): Matcher {
  const rules = scenarios.map((s) => ({ scenario: s, conds: conditions(s.match) }));
  return {
    find(req, keyId) {
      let closest: { scenario: Scenario; differs: string[] } | undefined;
      for (const rule of rules) {
        const differs = rule.conds.filter(([, test]) => !test(req, keyId)).map(([name, , why]) => why?.(req) ?? name);
        if (!differs.length) return { scenario: rule.scenario };
        if (!closest || differs.length < closest.differs.length) closest = { scenario: rule.scenario, differs };
      }
      return { closest: closest?.scenario, differs: closest?.differs ?? [] };
    },
  };
}
