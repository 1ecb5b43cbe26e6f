// Faults that proved collateral MUST failures on real servers (issue 42): a server that breaks a
// convention once, where the kit read that as a breach of a rule of the document too. Each is here as
// the server did it, and fails the one check whose rule it breaks, at that rule's level.
import { errorReply } from '../errors.js';
import { isRaw, isStream, type MockRequest } from '../types.js';
import type { Fault, FaultContext } from './fault.js';
import { isChat, keyOf, onChunks, requestJson, withPayloads } from './rewrite.js';

/** The limit of section 8 on stop sequences. */
const MOST_STOPS = 4;

/** What a request the document itself says cannot be served lacks or exceeds, as the upstream's error
 * says it: incomplete (4.1 rule 1), or over a limit (section 8); otherwise undefined. */
function unservable(req: MockRequest, ctx: FaultContext): string | undefined {
  const body = requestJson(req);
  if (!isChat(req) || keyOf(req, ctx.config) === undefined || body === undefined) return undefined;
  if (!('model' in body)) return 'Model is required';
  if (!('messages' in body)) return 'Messages are required';
  return Array.isArray(body.stop) && body.stop.length > MOST_STOPS ? `'stop' may hold at most ${MOST_STOPS} sequences` : undefined;
}

const asksUsage = (req: MockRequest) => (requestJson(req)?.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;

export const COLLATERAL_FAULTS: Fault[] = [
  {
    // Class 3: the request was not served and an error said why, which is all the MUST of 4.1 and 8
    // asks (section 7 leaves the status open); the 500 is the convention's breach, at should.
    name: 'errors-incomplete-500-with-error',
    description:
      'A request without model or messages, or with five stop sequences, is answered 500 with the upstream\'s error ("Model is required", "\'stop\' may hold at most 4 sequences"), as a gateway that retries an upstream 400 and gives up does',
    // parameters.out-of-range sends the same five sequences (one past the catalog's max_items) and
    // asks a 4xx of them by the same convention.
    fails: ['errors.missing-field-4xx', 'stop.five-4xx', 'parameters.out-of-range'],
    reply: (r, req, ctx) => {
      const why = !isRaw(r) && r.status === 400 ? unservable(req, ctx) : undefined;
      return why === undefined ? r : errorReply(500, why, 'invalid_request_error');
    },
  },
  {
    // Class 4: the usage is given twice; the rules that read the usage read the first that counts
    // something, and the trailer is usage.stream-single's to report.
    name: 'usage-stream-zeros-trailer',
    description: 'With include_usage, a second usage chunk of zeros follows the real one, as a gateway that appends its own usage trailer to the upstream stream does',
    fails: ['usage.stream-single'],
    reply: (r, req) =>
      asksUsage(req) && isStream(r)
        ? withPayloads(r, (ps) => {
            const at = ps.findIndex((p) => typeof p === 'object' && !!p?.usage);
            if (at < 0) return ps;
            const zeros = { ...ps[at], choices: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
            return [...ps.slice(0, at + 1), zeros, ...ps.slice(at + 1)];
          })
        : r,
  },
  {
    // Class 5: the finishing chunk's choice lacks its delta, the chunk schema's business; its
    // finish_reason is there, and chat.finish-reason reads it.
    name: 'stream-finish-without-delta',
    description: 'The chunk that ends a stream\'s choice carries no delta: {"index":0,"finish_reason":"stop"}, as a gateway translating another provider\'s stream sends it',
    fails: ['stream.chunk-schema'],
    reply: onChunks((chunk) => {
      for (const choice of chunk.choices ?? []) if (choice?.finish_reason) delete choice.delta;
    }),
  },
];
