// A recorded reply served as it was recorded: its text in the recorded chunks, its calls with the
// upstream's ids, its finish_reason and usage, and its pace. Nothing is generated and max_tokens
// and stop are not applied again: the upstream already answered this very request.
import type { ScenarioReply } from '../config/types.js';
import type { StreamEvent } from './chunks.js';
import type { ChatRequest, Completion, ToolCall } from './generate.js';
import { DONE, eventBytes } from './sse.js';
import { countTokens, promptTokens } from './tokens.js';
import type { Frame } from './types.js';

export function recordedCompletion(reply: ScenarioReply, req: ChatRequest): Completion {
  const calls: ToolCall[] = (reply.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? `call_recorded_${i}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
  const tokens = reply.chunks ?? (reply.text !== undefined ? [reply.text] : calls.length || reply.refusal !== undefined ? null : []);
  // A stream recorded without include_usage carried none: counted here as the mock counts.
  const usage = reply.usage ?? countedUsage(req, [...(tokens ?? []), reply.refusal ?? '', ...calls.map((c) => c.name + c.arguments)].join(''));
  const details = usage.completion_tokens_details as { reasoning_tokens?: number } | undefined;
  return {
    tokens,
    weights: tokens?.map(countTokens),
    ...(reply.refusal !== undefined ? { refusal: reply.refusal } : {}),
    toolCalls: calls,
    finishReason: reply.finish_reason ?? (calls.length ? 'tool_calls' : 'stop'),
    reasoningTokens: details?.reasoning_tokens ?? 0,
    // The upstream's usage object as it came, extra fields included.
    usage: usage as unknown as Completion['usage'],
  };
}

/** The stream's events at the recorded pace: the opening chunk and the first piece of text after
 * the recorded wait for it, each later piece after its own; the rest as soon as the text is out. */
export function* recordedFrames(events: Iterable<StreamEvent>, delays: readonly number[], stamp: (payload: string) => string): Generator<Frame> {
  let i = 0;
  let piece = 0;
  for (const [payload, tokens] of events) {
    let delayMs = 0;
    if (i === 0) delayMs = delays[0] ?? 0;
    else if (tokens > 0 && piece < delays.length) {
      delayMs = piece === 0 ? 0 : delays[piece];
      piece++;
    }
    i++;
    yield { delayMs: Math.round(delayMs), bytes: eventBytes(stamp(payload)) };
  }
  yield { delayMs: 0, bytes: eventBytes(DONE) };
}

function countedUsage(req: ChatRequest, completion: string) {
  const prompt = promptTokens(req.messages, req.tools ?? undefined);
  const spent = countTokens(completion);
  return { prompt_tokens: prompt, completion_tokens: spent, total_tokens: prompt + spent, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } };
}
