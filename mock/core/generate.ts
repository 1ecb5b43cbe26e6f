// Deterministic generation: the same request and seed always give the same reply, and every count
// in usage is exact under the tokenizer stand-in (tokens.ts).
import type { ModelDef } from '../config/types.js';
import { piece } from './content/piece.js';
import type { Profile } from './content/profile.js';
import { DEFAULT_PROFILE } from './content/profiles.js';
import { instanceOf } from './instance.js';
import { between, hash, pick, prng } from './random.js';
import { contentText, countTokens, promptTokens, splitTokens } from './tokens.js';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Completion {
  /** The content as the pieces it was generated in (tokens, or a scenario's chunks: a stream
   * sends them as they come); null with tool calls or a refusal. */
  tokens: string[] | null;
  /** Tokens in each piece of `tokens` (1 each, unless a scenario gave its own chunks). */
  weights?: number[];
  /** Set when the model refused: finish_reason content_filter. */
  refusal?: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  reasoningTokens: number;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
    completion_tokens_details: { reasoning_tokens: number };
  };
}

/** The request fields generation reads, after schema validation. */
export interface ChatRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[];
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  tools?: { type: string; function: { name: string; parameters?: unknown; strict?: boolean | null } }[] | null;
  tool_choice?: string | { type: string; function: { name: string } } | null;
  response_format?: { type: string; json_schema?: { name: string; schema?: unknown; strict?: boolean | null } } | null;
  reasoning_effort?: 'low' | 'medium' | 'high' | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean | null } | null;
}

/** The words of a json_object answer (free text comes from the content profile). */
const WORDS = ['mock', 'reply', 'token', 'model', 'answer', 'stream', 'chunk', 'value', 'delta', 'result', 'signal', 'vector', 'prompt', 'output', 'sample', 'kernel', 'cache', 'layer'];
const REASONING_BUDGET = { low: 8, medium: 24, high: 64 } as const;
/** A reasoning answer thinks its effort's budget and up to this many tokens more, seeded per request. */
const REASONING_SPREAD = 7;

/** The reasoning tokens a reasoning model of the mock spends before it answers, at each
 * reasoning_effort (medium when none is asked): what the banner and a frontend developer need to
 * know why a small max_tokens comes back cut. */
export const REASONING_TOKENS: Readonly<Record<keyof typeof REASONING_BUDGET, { min: number; max: number }>> = {
  low: { min: REASONING_BUDGET.low, max: REASONING_BUDGET.low + REASONING_SPREAD },
  medium: { min: REASONING_BUDGET.medium, max: REASONING_BUDGET.medium + REASONING_SPREAD },
  high: { min: REASONING_BUDGET.high, max: REASONING_BUDGET.high + REASONING_SPREAD },
};
const REPEAT = /repeat exactly:\s*([\s\S]*)$/i;
const LONG = /\b(long|essay|detailed|at length|many words|story|paragraphs?)\b/i;
const TOOL_RESULT_LEAD = piece('Based on the tool result:');

/** The text a "Repeat exactly:" prompt asks for, which is the whole answer; undefined for any other prompt. */
export const repeatedText = (user: string): string | undefined => REPEAT.exec(user)?.[1].trim();

export function lastUserText(req: ChatRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) if (req.messages[i].role === 'user') return contentText(req.messages[i].content);
  return '';
}

/** The turn already holds a tool result after the last user message: the agent loop should end. */
export function answersToolResult(req: ChatRequest): boolean {
  const last = req.messages[req.messages.length - 1];
  return last?.role === 'tool';
}

/** A reply a scenario scripts; what it leaves out is generated. */
export interface Script {
  text?: string;
  chunks?: string[];
  tool_calls?: { name: string; arguments?: unknown }[];
  refusal?: string;
  reasoning_tokens?: number;
}

export function generate(req: ChatRequest, model: ModelDef, script: Script = {}, profile: Profile = DEFAULT_PROFILE): Completion {
  const rand = prng(hash(JSON.stringify([req.model, req.messages, req.seed ?? null, req.tools ?? null, req.response_format ?? null])));
  // The model's own output limit holds whatever the request asks: a server-side cap, as real models have.
  const cap = Math.min(req.max_completion_tokens ?? req.max_tokens ?? Infinity, model.max_output_tokens);
  const wanted = script.reasoning_tokens ?? (model.reasoning ? REASONING_BUDGET[req.reasoning_effort ?? 'medium'] + between(rand, 0, REASONING_SPREAD) : 0);
  const reasoning = Math.min(cap, wanted);
  const budget = cap - reasoning;
  const prompt = promptTokens(req.messages, req.tools ?? undefined);
  const result = (tokens: string[] | null, toolCalls: ToolCall[], finishReason: FinishReason, spent: number): Completion => ({
    tokens,
    toolCalls,
    finishReason,
    reasoningTokens: reasoning,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: reasoning + spent,
      total_tokens: prompt + reasoning + spent,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: reasoning },
    },
  });

  if (budget <= 0) return result([], [], 'length', 0);

  if (script.refusal !== undefined) {
    const pieces = splitTokens(script.refusal).slice(0, budget);
    return { ...result(null, [], pieces.length < splitTokens(script.refusal).length ? 'length' : 'content_filter', pieces.length), refusal: pieces.join('') };
  }

  // Scripted content is the reply: tools offered do not turn it into a generated call.
  const scriptedContent = script.text !== undefined || script.chunks !== undefined;
  const calls = script.tool_calls ? honourChoice(req, scriptedCalls(req, script.tool_calls, rand), rand) : scriptedContent ? [] : toolCallsFor(req, rand);
  if (calls.length) {
    const spent = calls.reduce((n, c) => n + splitTokens(c.name + c.arguments).length, 0);
    // A call cut by the limit stays a call, as a model writes one: its name, then its arguments up
    // to where the cap fell, ended by length (never the arguments' JSON as text, which a chat UI paints).
    if (spent > budget) return result(null, cutCalls(calls, budget), 'length', budget);
    return result(null, calls, 'tool_calls', spent);
  }

  const stops = req.stop == null ? [] : (Array.isArray(req.stop) ? req.stop : [req.stop]).filter((s) => s.length > 0);
  // A scenario's chunks are pieces of several tokens each; generated text is one token a piece.
  const pieces = script.chunks ?? (script.text !== undefined ? splitTokens(script.text) : tokensFor(req, rand, profile));
  const weighted = !!script.chunks;
  // Nothing to watch for: the answer is the pieces up to the budget, with no search per token.
  if (!stops.length && !weighted) {
    const out = pieces.length > budget ? pieces.slice(0, budget) : pieces;
    return result(out, [], pieces.length > budget ? 'length' : 'stop', out.length);
  }
  const out: string[] = [];
  const weights: number[] = [];
  let content = '';
  let spent = 0;
  const done = (finish: FinishReason): Completion => ({ ...result(out, [], finish, spent), ...(weighted ? { weights } : {}) });
  for (const piece of pieces) {
    // A piece larger than what is left of the budget is generated token by token up to the cap.
    for (const token of weighted && countTokens(piece) > budget - spent ? splitTokens(piece) : [piece]) {
      const cost = weighted ? countTokens(token) : 1;
      if (spent + cost > budget) return done('length');
      const from = content.length;
      content += token;
      spent += cost;
      const at = firstStop(content, stops, from);
      if (at >= 0) {
        // The token that completed the stop sequence was generated (and is counted), but the
        // content ends before the sequence.
        const keep = at - (content.length - token.length);
        cutBack(out, weights, content.length - token.length - at);
        if (keep > 0) {
          out.push(token.slice(0, keep));
          weights.push(cost);
        } else if (weights.length) weights[weights.length - 1] += cost;
        return done('stop');
      }
      out.push(token);
      weights.push(cost);
    }
  }
  return done('stop');
}

/** The calls a budget of tokens holds: whole while they fit, then the one the cap fell in with its
 * name and the tokens of its arguments that fit (a name costs what it adds to its arguments). */
function cutCalls(calls: ToolCall[], budget: number): ToolCall[] {
  const out: ToolCall[] = [];
  let left = budget;
  for (const call of calls) {
    if (left <= 0) break;
    const args = splitTokens(call.arguments);
    const cost = splitTokens(call.name + call.arguments).length;
    if (cost <= left) out.push(call);
    else out.push({ ...call, arguments: args.slice(0, Math.max(0, left - (cost - args.length))).join('') });
    left -= cost;
  }
  return out;
}

/** Removes `chars` characters from the end of the pieces (a stop sequence that began in earlier pieces). */
function cutBack(out: string[], weights: number[], chars: number): void {
  while (chars > 0 && out.length) {
    const last = out[out.length - 1];
    if (last.length <= chars) {
      chars -= last.length;
      out.pop();
      const w = weights.pop() ?? 0;
      if (weights.length) weights[weights.length - 1] += w;
    } else {
      out[out.length - 1] = last.slice(0, last.length - chars);
      chars = 0;
    }
  }
}

/** Earliest index of any stop sequence that ends at or after `from` (earlier ones were seen before). */
function firstStop(content: string, stops: string[], from: number): number {
  let best = -1;
  for (const s of stops) {
    const at = content.indexOf(s, Math.max(0, from - s.length + 1));
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

/** The reply's tokens: structured output and "Repeat exactly:" are what they must be; free text is
 * the profile's, already tokenized. */
function tokensFor(req: ChatRequest, rand: () => number, profile: Profile): string[] {
  const user = lastUserText(req);
  const format = req.response_format?.type;
  if (format === 'json_schema') return splitTokens(JSON.stringify(instanceOf(req.response_format?.json_schema?.schema ?? { type: 'object' }, rand)));
  if (format === 'json_object') return splitTokens(JSON.stringify({ answer: words(rand, between(rand, 3, 8)).trim() }));
  const repeat = repeatedText(user);
  if (repeat !== undefined) return splitTokens(repeat);
  return profile.write(rand, LONG.test(user), answersToolResult(req) ? TOOL_RESULT_LEAD : undefined);
}

function words(rand: () => number, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += ` ${pick(rand, WORDS)}`;
  return out;
}

function scriptedCalls(req: ChatRequest, calls: NonNullable<Script['tool_calls']>, rand: () => number): ToolCall[] {
  return calls.map((c, i) => {
    const declared = req.tools?.find((t) => t.function.name === c.name);
    const args = c.arguments ?? instanceOf(declared?.function.parameters ?? { type: 'object', properties: {} }, rand);
    return { id: `call_${hash(JSON.stringify([c.name, args, i])).toString(36)}`, name: c.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
  });
}

/** A scenario's calls give way to the request's tool_choice: a script never makes the mock call a
 * tool it was told not to, or another than the one named. */
function honourChoice(req: ChatRequest, calls: ToolCall[], rand: () => number): ToolCall[] {
  const choice = req.tool_choice;
  if (choice === 'none') return [];
  if (choice && typeof choice === 'object') {
    const named = calls.filter((c) => c.name === choice.function.name);
    return named.length ? named : toolCallsFor(req, rand);
  }
  return calls;
}

/** Whether a user's words ask for what a tool does: a word of four letters or more of its name
 * (get_weather: weather) or of its description, found in the text. */
function invites(user: string, tool: { function: { name: string; description?: string } }): boolean {
  const words = `${tool.function.name.replace(/[_-]+/g, ' ')} ${tool.function.description ?? ''}`.toLowerCase().match(/\p{L}{4,}/gu) ?? [];
  return words.some((w) => !COMMON.has(w) && new RegExp(`\\b${w}`, 'u').test(user));
}

/** Words of a tool's description that say nothing of what it is for. */
const COMMON = new Set([
  'current',
  'this',
  'that',
  'with',
  'from',
  'into',
  'given',
  'return',
  'returns',
  'value',
  'data',
  'tool',
  'function',
  'call',
  'user',
  'input',
  'output',
  'some',
  'what',
  'when',
  'where',
  'which',
]);

function toolCallsFor(req: ChatRequest, rand: () => number): ToolCall[] {
  const tools = req.tools ?? [];
  if (!tools.length) return [];
  const choice = req.tool_choice ?? 'auto';
  if (choice === 'none') return [];
  let tool = tools[0];
  if (typeof choice === 'object') {
    const named = tools.find((t) => t.function.name === choice.function.name);
    if (!named) return [];
    tool = named;
  } else {
    // auto: call a tool until the conversation holds its result, so an agent loop ends.
    if (choice === 'auto' && answersToolResult(req)) return [];
    const user = lastUserText(req).toLowerCase();
    const invited = tools.find((t) => user.includes(t.function.name.toLowerCase())) ?? tools.find((t) => invites(user, t));
    // auto calls a tool only when the conversation asks for what one does, as a model would;
    // required calls one whatever was asked.
    if (choice === 'auto' && !invited) return [];
    tool = invited ?? pick(rand, tools);
  }
  const args = instanceOf(tool.function.parameters ?? { type: 'object', properties: {} }, rand);
  return [{ id: `call_${hash(JSON.stringify([tool.function.name, args, rand()])).toString(36)}`, name: tool.function.name, arguments: JSON.stringify(args) }];
}
