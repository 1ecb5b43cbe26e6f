// A stream's tool calls joined from their deltas the way the official clients join them, and what in
// the deltas keeps those clients from joining the calls the server meant. The document shows no
// tool-call shape (2.3: "not shown"), so these are conventions (level should); each is one that a
// client's source relies on, read there:
//
// - openai-node 6.x, src/lib/ChatCompletionStream.ts: `#accumulateChatCompletion` puts a delta in
//   `message.tool_calls[delta.index]`, sets `id`, `type` and `function.name` from any delta that
//   carries them (a later value overwrites the first) and concatenates `function.arguments`;
//   `#addChunk` skips the arguments events of a call until it has a `type`, and closes the current
//   call (`#emitToolCallDoneEvent`: its `tool_calls.function.arguments.done`, JSON.parse of the
//   arguments for a strict tool) as soon as a delta of another index arrives; `finalizeChatCompletion`
//   throws "missing ...type" or "missing ...function.name" for a call without them, makes up an id
//   (`call_<uuid>`) for a call without one, and `assertToolCallsAreChatCompletionFunctionToolCalls`
//   (src/lib/parser.ts) walks the array, so an index that leaves a hole throws there.
//   (`AssistantStream.accumulateDelta`, the SDK's generic delta join, is the Python one below.)
// - openai-python, src/openai/lib/streaming/_deltas.py `accumulate_delta`: list entries are joined
//   by their `index` (RuntimeError without one, TypeError when not an integer), and an entry at an
//   index past the list's end is inserted at its end; every string is concatenated but `index` and
//   `type`, so an `id` or `function.name` sent again is joined twice ("get_weatherget_weather").
//   src/openai/lib/streaming/chat/_completions.py `ChatCompletionStreamState._accumulate_chunk`
//   then reads `tool_calls[delta.index]` (IndexError when the indices do not count 0, 1, 2 in order
//   of appearance) and `ChoiceEventState.get_done_events` closes a call when another's delta
//   arrives, as openai-node does.
// - Vercel AI SDK, @ai-sdk/openai-compatible `OpenAICompatibleChatLanguageModel.doStream`: through
//   v1 it threw InvalidResponseDataError when the first delta of an index lacked `id` or
//   `function.name`, kept the first id and name, concatenated the arguments and ended the call as
//   soon as they parsed as JSON (`isParsableJson`), ignoring what followed; v2 (installed here)
//   buffers a call until its name comes, makes up a missing id, and throws "Expected
//   'function.name' to be a string" at the end for a call that never names its function
//   (@ai-sdk/provider-utils `StreamingToolCallTracker`).
//
// The conventions held here, on the deltas of choice 0:
// 1. The first delta of a call carries `id`, `type: "function"` and `function.name` (AI SDK v1 for
//    id and name, openai-node for type and name).
// 2. A later delta of the call carries neither `id` nor `function.name` again (openai-python
//    concatenates them; openai-node overwrites them with the last one sent).
// 3. A new call takes the next index: 0, 1, 2 in order of first appearance (openai-python subscripts
//    its list by index; openai-node leaves a hole).
// 4. A call's deltas come together: once a delta of another call arrives, the call gets no more
//    (openai-node and openai-python close it then, with the arguments so far).
// Held elsewhere, each in its one place: every delta has an integer `index` of at least 0 and a
// `function` object (openai-python's `_build_events` asserts `tool_call_delta.function is not
// None`; the AI SDK's chunk schema has `function: z.object(...)`, not nullish), and
// `function.arguments` is a string (the chunk schema, schemas/chunk.schema.json `toolCallDelta`,
// read with the rest of the tool-calls part); the arguments joined are JSON text of an object
// (tools.call-valid); the finish_reason of an answer that calls a tool is `tool_calls`
// (tools.finish-reason, 4.1 rule 2). Where the clients disagree on a broken stream, the calls read
// here keep the first id and name, as the one value every client would have agreed on.

export interface ToolCallRead {
  index: number;
  id?: unknown;
  name?: unknown;
  /** The argument text, joined from its fragments on a stream. */
  arguments: string;
  /** As received on a JSON answer, so a follow-up turn sends it back with any vendor fields. */
  raw?: Record<string, unknown>;
}

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
/** What a client takes for a value sent: a non-empty string (null, "" and absent join as nothing). */
const sent = (x: unknown) => x !== undefined && x !== null && x !== '';
const show = (x: unknown) => {
  const s = JSON.stringify(x) ?? String(x);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
};

/** What a client does with a first delta that lacks each field. */
const WITHOUT: Record<'id' | 'type' | 'function.name', string> = {
  id: 'the AI SDK v1 throws; openai-node makes one up unless a later delta sends it',
  type: 'openai-node sends no arguments events before it, and throws "missing type" unless a later delta sends it',
  'function.name': 'the AI SDK v1 throws; openai-node names the function "" unless a later delta sends it',
};

/** Joins the tool-call deltas of one choice, chunk by chunk, and says what breaks the conventions. */
export function toolCallJoiner() {
  const calls = new Map<number, ToolCallRead>();
  const problems: string[] = [];
  /** Each problem once per call and kind: a server that repeats an id does so on every delta. */
  const said = new Set<string>();
  const say = (key: string, problem: string) => {
    if (said.has(key)) return;
    said.add(key);
    problems.push(problem);
  };
  /** The call the last delta belonged to, and the calls a later call's delta has closed. */
  let current: number | undefined;
  const closed = new Set<number>();

  return {
    /** The `tool_calls` of one delta, from event `at`. */
    add(at: number, deltas: readonly unknown[]): void {
      for (const [place, d] of deltas.entries()) {
        if (!isObject(d)) continue;
        // A malformed index is the chunk schema's to report: the delta is taken for the call at its place.
        const index = Number.isInteger(d.index) && (d.index as number) >= 0 ? (d.index as number) : place;
        const fn = isObject(d.function) ? d.function : {};
        if (current !== undefined && current !== index) closed.add(current);
        let call = calls.get(index);
        if (!call) {
          if (index !== calls.size)
            say(
              `${index}:index`,
              `event ${at}: tool call ${calls.size} is due, but the call that starts has index ${index} (openai-python subscripts its list by index: IndexError; openai-node leaves a hole in tool_calls)`,
            );
          const has = { id: typeof d.id === 'string' && d.id !== '', type: d.type === 'function', 'function.name': typeof fn.name === 'string' && fn.name !== '' };
          const lacks = (['id', 'type', 'function.name'] as const).filter((k) => !has[k]);
          if (lacks.length) say(`${index}:first`, `event ${at}: the first delta of tool call ${index} lacks ${lacks.map((k) => `${k === 'type' ? 'type "function"' : k} (${WITHOUT[k]})`).join(', ')}`);
          calls.set(index, (call = { index, arguments: '' }));
          if (sent(d.id)) call.id = d.id;
          if (sent(fn.name)) call.name = fn.name;
        } else {
          if (closed.has(index))
            say(
              `${index}:interleaved`,
              `event ${at}: a delta of tool call ${index} comes after tool call ${current}'s began (openai-node and openai-python close a call when another's delta arrives, with the arguments so far)`,
            );
          for (const [key, value, joined] of [
            ['id', d.id, call.id],
            ['function.name', fn.name, call.name],
          ] as const) {
            if (!sent(value)) continue;
            // Filled leniently when the first delta lacked it (reported above).
            if (joined === undefined) {
              if (key === 'id') call.id = value;
              else call.name = value;
              continue;
            }
            say(
              `${index}:${key}`,
              value === joined
                ? `event ${at}: a later delta of tool call ${index} sends its ${key} ${show(value)} again (openai-python joins it as ${show(`${joined}${value}`)})`
                : `event ${at}: a later delta of tool call ${index} sends another ${key} ${show(value)} (openai-node takes it instead of ${show(joined)}; openai-python joins ${show(`${joined}${value}`)})`,
            );
          }
        }
        if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
        current = index;
      }
    },
    /** The calls by index, and what keeps a client from joining them as sent. */
    done(): { calls: ToolCallRead[]; problems: string[] } {
      return { calls: [...calls.values()].sort((a, b) => a.index - b.index), problems };
    },
  };
}
