// What breaks a client where no rule of the document does (issue 45): a requirement outside the
// document, and a precondition a server never lets a flow reach. No check fails on them; a client
// flow that meets them fails, and the report says which kind of cause it was (clients/judge.ts).
import type { Fault } from './fault.js';
import { onAnswers } from './rewrite.js';

/** A request whose tools are all declared without strict: their arguments are the model's to choose. */
const looseTools = (b: Record<string, unknown>) => Array.isArray(b.tools) && b.tools.length > 0 && b.tools.every((t: { function?: { strict?: unknown } }) => t?.function?.strict !== true);

export const CAUSE_FAULTS: Fault[] = [
  {
    // The document does not show tool definitions: arguments the declared parameters do not allow
    // break no rule of it, yet a client that checks them (LangChain, the AI SDK) throws.
    name: 'tools-arguments-off-schema',
    description:
      'The arguments of a tool call leave out a parameter the request declares required, for tools declared without strict: valid JSON, a call as the document shows it, but not what the function takes',
    fails: [],
    breaksFlowsOnly: ['langchain.tools'],
    reply: onAnswers((answer, b) => {
      if (!looseTools(b)) return;
      for (const c of answer.choices ?? []) {
        const calls = c.message?.tool_calls ?? c.delta?.tool_calls;
        for (const call of calls ?? []) {
          if (typeof call?.function?.arguments !== 'string' || !call.function.arguments) continue;
          try {
            const args = JSON.parse(call.function.arguments);
            if (args && typeof args === 'object' && 'days' in args) {
              delete args.days;
              call.function.arguments = JSON.stringify(args);
            }
          } catch {
            // A piece of a streamed call: the whole is what a client reads; left as it came.
          }
        }
      }
    }),
  },
  {
    // A model that never emits its end: every answer in text reaches its max_tokens, "length", as
    // 4.1 says it must, and a structured answer is cut before its JSON closes. No rule breaks; the
    // flows that need an answer that ends by itself never get one, and chat.natural-stop has nothing
    // to judge. A stop sequence, or a tool call, ends an answer the model does not choose to end.
    name: 'model-never-stops',
    description:
      'Every answer in text runs to its max_tokens and ends with finish_reason "length" (a structured one cut before its JSON closes), as a small model that never emits its end token does: legal, and no flow that needs an answer that ends by itself gets one',
    fails: [],
    frontend: true,
    reply: onAnswers((answer, b) => {
      if (b.stop !== undefined || typeof b.max_tokens !== 'number') return;
      const structured = (b.response_format as { type?: unknown } | undefined)?.type === 'json_schema';
      for (const c of answer.choices ?? []) {
        if (c.finish_reason !== 'stop') continue;
        c.finish_reason = 'length';
        const message = c.message;
        if (structured && typeof message?.content === 'string') message.content = message.content.slice(0, Math.ceil(message.content.length / 2));
      }
      if (answer.usage && typeof answer.usage === 'object') {
        answer.usage.completion_tokens = b.max_tokens;
        answer.usage.total_tokens = answer.usage.prompt_tokens + b.max_tokens;
      }
    }),
  },
  {
    // Browsers ask an API on another origin whether a page may call it (CORS); the document says
    // nothing of browsers. A server that answers no preflight and no Access-Control-Allow-Origin
    // serves every check, and no page.
    name: 'cors-absent',
    description:
      'No CORS: a preflight (OPTIONS) answers 404 and no answer carries Access-Control-Allow-Origin, as an API meant for servers only; every check passes, and a page on another origin is refused by its browser',
    fails: [],
    frontend: true,
    withoutCors: true,
  },
];
