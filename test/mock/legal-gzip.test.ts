// The gzip variation as a browser decodes it. Chromium ends a gzip body at the end of its first
// member, without an error; a stream sent as a member per write reached a page as its first event.
// So the stream is one member, its deflate data flushed at the end of every write: decoded the way
// such a decoder does (inflate up to the first member's end), it is the whole stream, and each write
// decodes as it arrives.
import { constants, gunzipSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { faultNamed } from '../../mock/core/faults/index.js';
import { createMock } from '../../mock/core/handle.js';
import type { Frame, MockReply } from '../../mock/core/types.js';
import { bodyText, chatRequest, frames, headersOf, streamText, user } from './helpers.js';

const GZIP = faultNamed('legal-gzip');
const CTX = { config: createMock().config, params: {} };

/** The answer without the variation, its frames kept (a stream may be iterated once), and with it. */
function both(body: Record<string, unknown>): { plain: MockReply; gzipped: MockReply } {
  const req = chatRequest(body);
  const served = createMock().handle(req);
  const plain = 'stream' in served ? { ...served, stream: [...served.stream] } : served;
  return { plain, gzipped: GZIP.reply!(plain, req, CTX) };
}

const writes = (fs: Frame[]) => fs.flatMap((f) => ('bytes' in f ? [Buffer.from(f.bytes)] : []));

/** The first gzip member's text, and where the member ends: what a decoder that stops there reads. */
function firstMember(b: Buffer): { text: string; end: number } {
  expect([...b.subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]);
  expect(b[3], 'no optional header fields').toBe(0);
  const { buffer, engine } = inflateRawSync(b.subarray(10), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  return { text: buffer.toString('utf8'), end: 10 + engine.bytesWritten };
}

describe('legal-gzip', () => {
  it('sends a stream as one gzip member: a decoder that stops after the first member reads all of it', () => {
    const { plain, gzipped } = both({ ...user('Count to twenty.'), stream: true, stream_options: { include_usage: true } });
    expect(headersOf(gzipped)['content-encoding']).toBe('gzip');
    const all = Buffer.concat(writes(frames(gzipped)));
    const text = streamText(frames(plain));
    expect(text).toMatch(/data: \[DONE\]\n\n$/);
    const member = firstMember(all);
    expect(member.text).toBe(text);
    // Then its trailer (CRC-32 and size, which gunzip verifies), and nothing after it.
    expect(all.length).toBe(member.end + 8);
    expect(gunzipSync(all).toString('utf8')).toBe(text);
  });

  it('flushes at the end of every write, so that each decodes as it arrives', () => {
    const { plain, gzipped } = both({ ...user('Count to twenty.'), stream: true });
    const plainWrites = writes(frames(plain));
    const sent = writes(frames(gzipped));
    // One write for each of the stream's, and the member's end (its last block and trailer) after them.
    expect(sent.length).toBe(plainWrites.length + 1);
    expect(plainWrites.length).toBeGreaterThan(3);
    for (let i = 1; i <= plainWrites.length; i++) {
      const arrived = inflateRawSync(Buffer.concat(sent.slice(0, i)).subarray(10), { finishFlush: constants.Z_SYNC_FLUSH });
      expect(arrived.toString('utf8'), `after write ${i}`).toBe(Buffer.concat(plainWrites.slice(0, i)).toString('utf8'));
    }
  });

  it('gives the same bytes each time its stream is read', () => {
    const { gzipped } = both({ ...user('Hello'), stream: true });
    expect(Buffer.concat(writes(frames(gzipped)))).toEqual(Buffer.concat(writes(frames(gzipped))));
  });

  it('ends at a reset, with nothing after it', () => {
    const cut: MockReply = {
      status: 200,
      headers: {},
      stream: [
        { delayMs: 0, bytes: 'data: {}\n\n' },
        { delayMs: 0, reset: true },
        { delayMs: 0, bytes: 'never' },
      ],
    };
    const sent = frames(GZIP.reply!(cut, chatRequest({}), CTX));
    expect(sent.map((f) => ('reset' in f ? 'reset' : 'bytes'))).toEqual(['bytes', 'reset']);
    const first = Buffer.from((sent[0] as { bytes: Uint8Array }).bytes);
    expect(inflateRawSync(first.subarray(10), { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8')).toBe('data: {}\n\n');
  });

  it('sends a JSON answer as one gzip member', () => {
    const { plain, gzipped } = both(user('Hello'));
    const body = Buffer.from((gzipped as { body: Uint8Array }).body);
    expect(firstMember(body).text).toBe(bodyText(plain));
    expect(gunzipSync(body).toString('utf8')).toBe(bodyText(plain));
  });
});
