// Legal variations: forms the document and the SSE rules allow, which every check must pass.
// Each fails nothing; a check that fails on one of them is too strict.
import { isStream, type Frame } from '../types.js';
import type { Fault } from './fault.js';
import { isChat, withJson, withStreamText } from './rewrite.js';

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
        const bytes = Buffer.from(t);
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
];
