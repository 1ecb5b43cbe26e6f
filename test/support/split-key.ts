// A mock that sends the API key back in pieces: never whole, so a redactor that looks for the key
// whole finds nothing, while a reader who joins the pieces has it. The measured leak of issue 41: a
// key split across two SSE content deltas, or across two words, reached every report format.
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import type { MockConfig } from '../../mock/config/types.js';
import { isChat, withJson, withPayloads } from '../../mock/core/faults/rewrite.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { isRaw, isStream } from '../../mock/core/types.js';
import { rewrittenMock } from './run.js';

/** The mock's configuration with its first key replaced by `key`, the models it lists kept. */
export const configWithKey = (key: string): MockConfig => ({ ...DEFAULT_CONFIG, keys: [{ ...DEFAULT_CONFIG.keys[0], key }, ...DEFAULT_CONFIG.keys.slice(1)] });

/** Where the key is split, and how far into a text it stands, for the `n`th answer: a different
 * place each time, so that a run of some hundred answers splits it everywhere and puts it across
 * every bound a text is cut at (a suite's show at 80 or 120, an error's 200, an excerpt's 1,200). */
function placeOf(key: string, n: number): { left: string; right: string; filler: string } {
  const at = 1 + ((n * 7) % (key.length - 1));
  return { left: key.slice(0, at), right: key.slice(at), filler: 'w'.repeat((n * 37) % 1300) };
}

/** Every chat answer carries the key split: streamed, its first piece ends one content delta and the
 * second begins the next; as one JSON body, the two pieces are two words of the content. Every
 * refusal's message carries it as two words after filler, and every answer's `x-request-id` too. A
 * chat request of more than 4 KiB (the fuzz's long strings) is answered 500, so that the fuzz
 * reports what it was told. */
export function splitKeyMock(key: string): Mock {
  let n = 0;
  return rewrittenMock(
    (req, reply) => {
      if (isRaw(reply)) return reply;
      const { left, right, filler } = placeOf(key, n++);
      const headers = { ...reply.headers, 'x-request-id': `${filler.slice(0, 400)}${left} ${right}` };
      if (isChat(req) && (req.body?.length ?? 0) > 4096)
        return { status: 500, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ error: { message: `broke on ${filler}${left} ${right}`, type: 'server_error' } }) };
      if (reply.status >= 400) return withJson({ ...reply, headers }, (b) => void (b.error && (b.error.message = `${b.error.message} ${filler}${left} ${right}`)));
      if (!isChat(req) || reply.status !== 200) return { ...reply, headers };
      if (!isStream(reply))
        return withJson({ ...reply, headers }, (b) => void (b.choices?.[0]?.message && (b.choices[0].message.content = `${filler}${left} ${right} ${b.choices[0].message.content ?? ''}`)));
      return withPayloads({ ...reply, headers }, (payloads) => {
        const at = payloads.findIndex((p) => typeof p === 'object' && p.choices?.[0]?.delta && 'content' in p.choices[0].delta);
        if (at < 0) return payloads;
        const first = payloads[at];
        const second = structuredClone(first);
        first.choices[0].delta.content = `${first.choices[0].delta.content ?? ''}${filler}${left}`;
        second.choices[0].delta = { content: right };
        return [...payloads.slice(0, at + 1), second, ...payloads.slice(at + 1)];
      });
    },
    (r) => r,
    createMock(configWithKey(key)),
  );
}
