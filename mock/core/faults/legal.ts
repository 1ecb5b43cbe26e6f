// Legal variations: forms the document and the SSE rules allow, which every check must pass.
// Each fails nothing; a check that fails on one of them is too strict.
import { isRaw, isStream, type Frame } from '../types.js';
import type { Fault } from './fault.js';
import { isChat, withJson, withPayloads, withStreamText } from './rewrite.js';
import { bytesOf, concatBytes, textOf } from '../bytes.js';

/** Node's zlib, reached at run time: the core imports nothing of Node, and in a browser (which
 * decompresses for the page anyway) this variation is refused. */
function nodeZlib(): typeof import('node:zlib') {
  const zlib = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:zlib') as typeof import('node:zlib') | undefined;
  if (!zlib) throw new Error('the gzip variation needs Node');
  return zlib;
}

const gzip = (b: Uint8Array): Uint8Array => nodeZlib().gzipSync(b);

// RFC 1952: ID1 ID2, CM deflate, no flags, no time, no extra flags, OS unknown.
const GZIP_HEADER = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255);

/** A stream's writes as one gzip member, its deflate data flushed (Z_SYNC_FLUSH) at the end of each
 * write, so that a client decodes each write as it arrives; the last block and the trailer follow the
 * last write. This is what a server compressing a stream sends. A member per write (which RFC 1952
 * allows) is not: Chromium's decoder ends the body at the end of the first member, without an
 * error, so a page read one event of each stream. Each write is deflated on its own (no reference
 * back into an earlier one), which a single deflate stream allows. Iterable again, from the start. */
function gzipStream(frames: Iterable<Frame>): Iterable<Frame> {
  return {
    *[Symbol.iterator]() {
      const zlib = nodeZlib();
      let crc = 0;
      let size = 0;
      let header: Uint8Array = GZIP_HEADER;
      for (const f of frames) {
        if (!('bytes' in f)) {
          // A reset cuts the connection: nothing after it reaches the client.
          yield f;
          return;
        }
        const bytes = bytesOf(f.bytes);
        crc = zlib.crc32(bytes, crc);
        size += bytes.length;
        yield { ...f, bytes: concatBytes(header, zlib.deflateRawSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH })) };
        header = new Uint8Array();
      }
      // The last (empty) block, then CRC32 and ISIZE, little-endian.
      const trailer = new Uint8Array(8);
      const view = new DataView(trailer.buffer);
      view.setUint32(0, crc >>> 0, true);
      view.setUint32(4, size % 2 ** 32, true);
      yield { delayMs: 0, bytes: concatBytes(header, zlib.deflateRawSync(new Uint8Array()), trailer) };
    },
  };
}

// In this order a CR is always followed by CRLF, never by LF: a CR then an LF would read as one
// CRLF, losing the blank line that ends an event and merging two events into one.
const ENDINGS = ['\n', '\r', '\r\n'];

export const LEGAL: Fault[] = [
  {
    name: 'legal-data-without-space',
    description: 'SSE: `data:{...}` with no space after the colon',
    fails: [],
    reply: (r) => withStreamText(r, (t) => t.replace(/^data: /gm, 'data:')),
  },
  {
    name: 'legal-mixed-line-endings',
    description: 'SSE: lines end in LF, CRLF and CR, changing from line to line',
    fails: [],
    reply: (r) => {
      let i = 0;
      return withStreamText(r, (t) => t.replace(/\n/g, () => ENDINGS[i++ % ENDINGS.length]));
    },
  },
  {
    name: 'legal-multi-line-data',
    description: 'SSE: each JSON payload spread over several data: lines (joined with LF by the client)',
    fails: [],
    // Split between top-level fields only: a line break inside a string value would change it.
    reply: (r) =>
      withStreamText(r, (t) =>
        t.replace(/^data: (\{.*)$/gm, (_, json: string) => {
          const fields = Object.entries(JSON.parse(json) as Record<string, unknown>).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
          return `data: {${fields.join(',\ndata: ')}}`;
        }),
      ),
  },
  {
    name: 'legal-comments',
    description: 'SSE: comment lines before and between events (keep-alives)',
    fails: [],
    reply: (r) => withStreamText(r, (t) => `: stream opened\n\n${t.replace(/\n\n/g, '\n: keep-alive\n\n')}`),
  },
  {
    name: 'legal-event-id-retry',
    description: 'SSE: every event carries event:, id: and retry: fields',
    fails: [],
    reply: (r) => {
      let id = 0;
      return withStreamText(r, (t) => `retry: 3000\n\n${t.replace(/^data: /gm, () => `event: message\nid: ${++id}\ndata: `)}`);
    },
  },
  {
    name: 'legal-byte-drip',
    description: 'SSE: the stream delivered three bytes at a time',
    fails: [],
    reply: (r) =>
      withStreamText(r, (t) => {
        const bytes = bytesOf(t);
        const out: Frame[] = [];
        for (let i = 0; i < bytes.length; i += 3) out.push({ delayMs: 0, bytes: bytes.subarray(i, i + 3) });
        return out;
      }),
  },
  {
    name: 'legal-extra-fields',
    description: 'Responses carry fields the document does not list (system_fingerprint, service_tier, a vendor field)',
    fails: [],
    reply: (r, req) =>
      !isChat(req) || isStream(r)
        ? r
        : withJson(r, (b) => {
            b.system_fingerprint = 'fp_mock';
            b.service_tier = 'default';
            b.x_vendor = { region: 'eu' };
          }),
  },
  {
    name: 'legal-gzip',
    description: 'Every response is sent with Content-Encoding: gzip (a stream as one gzip member, flushed at every write); with no Accept-Encoding any coding is acceptable (RFC 9110, 12.5.3)',
    fails: [],
    reply: (r) => {
      if (isRaw(r)) return r;
      const headers = { ...r.headers, 'content-encoding': 'gzip' };
      if (!isStream(r)) return { ...r, headers, body: gzip(bytesOf(r.body)) };
      return { ...r, headers, stream: gzipStream(r.stream) };
    },
  },
  {
    name: 'legal-json-whitespace',
    description: 'JSON bodies are indented and every object lists its fields in reverse order; stream chunks have spaces around colons and commas',
    fails: [],
    reply: (r) => {
      if (isRaw(r)) return r;
      if (isStream(r)) return withStreamText(r, (t) => t.replace(/^data: (\{.*)$/gm, (_, json: string) => `data: ${spaced(reversed(JSON.parse(json)))}`));
      try {
        return { ...r, body: JSON.stringify(reversed(JSON.parse(textOf(r.body))), null, 2) };
      } catch {
        return r;
      }
    },
  },
  {
    name: 'legal-null-fields',
    description: 'Chunks carry fields the document does not list, as null: logprobs, system_fingerprint, usage, delta.refusal, delta.function_call; the JSON choice carries logprobs: null',
    fails: [],
    reply: (r, req) => {
      if (!isChat(req)) return r;
      if (!isStream(r)) return withJson(r, (b) => void (b.choices ?? []).forEach((c: Json) => (c.logprobs = null)));
      return withPayloads(r, (ps) =>
        ps.map((p) => {
          if (typeof p !== 'object' || p === null) return p;
          for (const c of p.choices ?? []) Object.assign(c, { logprobs: null }, { delta: { refusal: null, function_call: null, ...c.delta } });
          return { system_fingerprint: null, usage: null, ...p };
        }),
      );
    },
  },
  {
    name: 'legal-ping-before-events',
    description: 'SSE: a ": ping" comment before every event',
    fails: [],
    reply: (r) => withStreamText(r, (t) => t.replace(/(^|\n\n)(?=data: )/g, '$1: ping\n\n')),
  },
  {
    name: 'legal-dated-model',
    description: 'The response names a dated id of the model asked for (mock-chat-1-2026-01-01), in the body and in every chunk',
    fails: [],
    reply: (r, req) => {
      if (!isChat(req)) return r;
      const dated = (x: Json) => void (typeof x.model === 'string' && (x.model = `${x.model}-2026-01-01`));
      return isStream(r) ? withPayloads(r, (ps) => ps.map((p) => (typeof p === 'object' && p !== null ? (dated(p), p) : p))) : withJson(r, dated);
    },
  },
];

type Json = Record<string, any>;

/** The same object with its fields (at every depth) in reverse order. */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reversed(x)]),
  );
}

/** JSON on one line with a space on either side of every colon and comma. */
function spaced(v: unknown): string {
  if (Array.isArray(v)) return `[ ${v.map(spaced).join(' , ')} ]`;
  if (v && typeof v === 'object')
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)} : ${spaced(x)}`)
      .join(' , ')} }`;
  return JSON.stringify(v);
}
