// Faults proving the checks of the usage suite (6.2): the usage a stream carries, with and without
// stream_options.include_usage.
import type { MockReply, MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { requestJson, withPayloads } from './rewrite.js';

const askedUsage = (req: MockRequest) => (requestJson(req)?.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
const isUsageChunk = (p: any) => typeof p === 'object' && !!p?.usage;
const isFinishChunk = (p: any) => typeof p === 'object' && !!p?.choices?.[0]?.finish_reason;

/** Edits the payloads of streams that asked for usage; other replies (a refusal) pass unchanged. */
const onUsageStream =
  (edit: (payloads: any[]) => unknown[]): NonNullable<Fault['reply']> =>
  (r: MockReply, req: MockRequest) =>
    askedUsage(req) ? withPayloads(r, edit) : r;

export const USAGE_FAULTS: Fault[] = [
  {
    name: 'usage-stream-missing',
    description: 'include_usage is ignored: no chunk of the stream carries the usage',
    fails: ['usage.stream-present'],
    breaks: ['stream:usage'],
    reply: onUsageStream((ps) => ps.filter((p) => !isUsageChunk(p))),
  },
  {
    name: 'usage-stream-on-every-chunk',
    description: 'With include_usage, every chunk carries the usage, not only the last',
    fails: ['usage.stream-single'],
    reply: onUsageStream((ps) => {
      const usage = ps.find(isUsageChunk)?.usage;
      return ps.map((p) => (typeof p === 'object' ? { ...p, usage } : p));
    }),
  },
  {
    name: 'usage-stream-before-finish',
    description: 'The usage chunk comes before the chunk with the finish_reason',
    fails: ['usage.stream-position'],
    reply: onUsageStream((ps) => {
      const usage = ps.find(isUsageChunk);
      const rest = ps.filter((p) => p !== usage);
      const at = rest.findIndex(isFinishChunk);
      return [...rest.slice(0, at), usage, ...rest.slice(at)];
    }),
  },
  {
    name: 'usage-stream-with-choices',
    description: 'The usage chunk carries a choice instead of choices: []',
    fails: ['usage.stream-position'],
    reply: onUsageStream((ps) => ps.map((p) => (isUsageChunk(p) ? { ...p, choices: [{ index: 0, delta: {}, finish_reason: null }] } : p))),
  },
  {
    name: 'usage-stream-shape',
    description: 'The streamed usage has prompt_tokens as a string, not an integer',
    fails: ['usage.stream-present'],
    breaks: ['stream:usage'],
    reply: onUsageStream((ps) => ps.map((p) => (isUsageChunk(p) ? { ...p, usage: { ...p.usage, prompt_tokens: String(p.usage.prompt_tokens) } } : p))),
  },
  {
    name: 'usage-stream-total-off',
    description: 'The streamed total_tokens is one more than prompt_tokens plus completion_tokens',
    fails: ['usage.stream-total'],
    reply: onUsageStream((ps) => ps.map((p) => (isUsageChunk(p) ? { ...p, usage: { ...p.usage, total_tokens: p.usage.total_tokens + 1 } } : p))),
  },
  {
    name: 'usage-stream-unasked',
    description: 'A usage chunk is sent though include_usage was not set',
    fails: ['usage.stream-absent'],
    reply: (r, req) =>
      askedUsage(req)
        ? r
        : withPayloads(r, (ps) => {
            const last = ps.filter((p) => typeof p === 'object').at(-1);
            const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
            return [...ps.slice(0, -1), { ...last, choices: [], usage }, ps.at(-1)];
          }),
  },
  {
    name: 'usage-stream-counts-chunks',
    description: 'The streamed usage counts the chunks of the stream as completion tokens',
    fails: ['chat.max-tokens', 'usage.stream-counts'],
    reply: onUsageStream((ps) => {
      const chunks = ps.filter((p) => typeof p === 'object' && !isUsageChunk(p)).length;
      const usage = ps.find(isUsageChunk)?.usage;
      if (usage) {
        usage.completion_tokens = chunks;
        usage.total_tokens = usage.prompt_tokens + chunks;
        usage.completion_tokens_details.reasoning_tokens = Math.min(usage.completion_tokens_details.reasoning_tokens, chunks);
      }
      return ps;
    }),
  },
];
