// What a session asks a server to generate: the max_tokens of the chat requests a server owes an
// answer, summed (a hosted service bills each token, a small engine has little context), and how
// many asked no cap at all. A request sent to be refused (a value outside what the document or the
// catalog allows, a generated case a server owes a 4xx) asks a conforming server for nothing: its
// max_tokens (a generated one can be 2^32) is counted apart, never in the sum.
import type { RequestSpec } from '../engine/http.js';

interface Cost {
  maxTokens: number;
  uncapped: number;
  /** Chat requests sent to be refused, whatever they asked. */
  refused: number;
  /** Chat requests sent again with less to find which field a refusal was of (suites/ask.ts):
   * counted in the sum too, as what they asked was generated. */
  askedAgain: number;
}

/** A request built to be refused: a field that no part of the engine sends or reads, kept as the
 * runner copies a check's request on its way to the wire. */
type Costed = RequestSpec & { toBeRefused?: true; askedAgain?: true };

/** Marks a request as one a server owes a refusal: what it asks for is no cost. */
export function toBeRefused(spec: RequestSpec): RequestSpec {
  const marked: Costed = { ...spec, toBeRefused: true };
  return marked;
}

/** Marks a request as one sent again with less to locate a refusal: what attribution cost. */
export function askedAgain(spec: RequestSpec): RequestSpec {
  const marked: Costed = { ...spec, askedAgain: true };
  return marked;
}

export function costOf(requests: readonly RequestSpec[]): Cost {
  let maxTokens = 0;
  let uncapped = 0;
  let refused = 0;
  let again = 0;
  for (const r of requests) {
    if (r.method !== 'POST' || !r.url.includes('/v1/chat/completions')) continue;
    if ((r as Costed).askedAgain) again++;
    if ((r as Costed).toBeRefused) {
      refused++;
      continue;
    }
    let body: unknown;
    try {
      body = JSON.parse(r.body ?? '');
    } catch {
      continue;
    }
    // A body that is no object asks nothing to be generated: it is refused.
    if (!body || typeof body !== 'object' || Array.isArray(body)) continue;
    const cap = (body as { max_tokens?: unknown }).max_tokens;
    // A cap that is no count (3.5, -1) asks nothing: it is refused.
    if (cap === undefined || cap === null) uncapped++;
    else if (Number.isSafeInteger(cap) && (cap as number) >= 0) maxTokens += cap as number;
  }
  return { maxTokens, uncapped, refused, askedAgain: again };
}
