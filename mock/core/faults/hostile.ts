// Faults of HTTP itself, and a target that is not the API at all. They prove that the runner ends
// every run with verdicts and evidence, within its limits, against a server that misbehaves at the
// transport, or before the first check where the target is no API; no check is proven by them.
import type { Frame, MockReply } from '../types.js';
import type { Fault } from './fault.js';
import { bytesOf, concatBytes, textOf } from '../bytes.js';

/** setTimeout's longest delay: "forever", as far as any test's deadline can tell. */
const FOREVER_MS = 2 ** 31 - 1;

function pseudoRandom(n: number, seed = 42): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x & 0xff;
  }
  return b;
}

const bodyBytes = (r: MockReply): Uint8Array | undefined => ('body' in r ? bytesOf(r.body) : undefined);

function* forever(): Generator<Frame> {
  const event = 'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n';
  for (;;) yield { delayMs: 2, bytes: event };
}

function* hundredMegabytes(): Generator<Frame> {
  const block = new Uint8Array(64 * 1024).fill(0x61);
  for (let sent = 0; sent < 100 * 1024 * 1024; sent += block.length) yield { delayMs: 0, bytes: block };
}

function* drip(bytes: Uint8Array): Generator<Frame> {
  for (let i = 0; i < bytes.length; i++) yield { delayMs: i ? 1000 : 0, bytes: bytes.subarray(i, i + 1) };
}

const streamOf = (status: number, type: string, frames: Iterable<Frame>): MockReply => ({
  status,
  headers: { 'content-type': type },
  stream: frames,
});

export const HOSTILE: Fault[] = [
  {
    name: 'hostile-random-bytes',
    description: 'Answers every request with 4 KiB of random bytes instead of HTTP',
    fails: [],
    hostile: true,
    reply: () => ({ raw: pseudoRandom(4096) }),
  },
  {
    name: 'hostile-headers-then-nothing',
    description: 'Sends a 200 and its headers, then nothing, without closing',
    fails: [],
    hostile: true,
    reply: () => streamOf(200, 'application/json', [{ delayMs: FOREVER_MS, bytes: '' }]),
  },
  {
    name: 'hostile-drip',
    description: 'Sends the right body, one byte a second',
    fails: [],
    hostile: true,
    reply: (r) => ('status' in r ? streamOf(r.status, r.headers['content-type'] ?? 'application/json', drip(bodyBytes(r) ?? bytesOf('{}'))) : r),
  },
  {
    name: 'hostile-stream-forever',
    description: 'Streams chunks forever, never a finish_reason, never [DONE]',
    fails: [],
    hostile: true,
    reply: () => streamOf(200, 'text/event-stream', forever()),
  },
  {
    name: 'hostile-hundred-megabytes',
    description: 'Answers with a 100 MB body',
    fails: [],
    hostile: true,
    reply: () => streamOf(200, 'application/json', hundredMegabytes()),
  },
  {
    name: 'hostile-reset-mid-stream',
    description: 'Sends the first part of the answer, then resets the connection',
    fails: [],
    hostile: true,
    reply: (r) => {
      const bytes = bodyBytes(r) ?? bytesOf([...('stream' in r ? r.stream : [])].map((f) => ('bytes' in f ? textOf(f.bytes) : '')).join(''));
      return streamOf('status' in r ? r.status : 200, 'headers' in r ? (r.headers['content-type'] ?? 'application/json') : 'application/json', [
        { delayMs: 0, bytes: bytes.subarray(0, Math.max(1, bytes.length >> 1)) },
        { delayMs: 5, reset: true },
      ]);
    },
  },
  {
    name: 'hostile-empty-200',
    description: 'Answers 200 with an empty body',
    fails: [],
    hostile: true,
    reply: () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '' }),
  },
  {
    name: 'hostile-invalid-utf8',
    description: 'Puts bytes that are not UTF-8 inside the first JSON string of every answer',
    fails: [],
    hostile: true,
    reply: (r) => {
      const bytes = bodyBytes(r);
      if (!bytes || !('status' in r)) return r;
      const at = bytesOf(bytes).indexOf(0x22) + 1;
      if (at <= 0) return r;
      return { ...r, body: concatBytes(bytesOf(bytes).subarray(0, at), Uint8Array.of(0xc3, 0x28, 0xff, 0xfe), bytesOf(bytes).subarray(at)) };
    },
  },
  {
    // Not the API at all: a run against it ends before the first check, exit 2 and one line
    // (suites/sanity.ts), whatever the statuses, as an HTML page is never the API's answer.
    name: 'not-the-api-html',
    description: 'Every route answers an HTML error page as `python3 -m http.server` does where the API should be: 404 to a GET, 501 to any other method',
    fails: [],
    hostile: true,
    reply: (_r, req) => {
      const [status, title] = req.method === 'GET' ? [404, 'Error response'] : [501, 'Error response'];
      return {
        status,
        headers: { 'content-type': 'text/html;charset=utf-8' },
        body: `<!DOCTYPE HTML>\n<html lang="en">\n<head><meta charset="utf-8"><title>${title}</title></head>\n<body><h1>${title}</h1><p>Error code: ${status}</p></body>\n</html>\n`,
      };
    },
  },
];
