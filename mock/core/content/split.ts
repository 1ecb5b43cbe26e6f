// Streams cut where careless clients break. `bytes`: each event is written in pieces, cut inside the
// `data:` line and inside multi-byte UTF-8 characters, with a real pause between them so a client
// reads them apart (a client that decodes each read on its own, or parses a line before its end,
// shows U+FFFD or drops the event). `fence`: a markdown fence's backticks arrive in two deltas, so a
// renderer sees "``" before it knows a code block opens. The events themselves are unchanged.
import type { Frame } from '../types.js';
import { bytesOf } from '../bytes.js';

const FENCE = /`{3,}/g;

/** A stream's content pieces regrouped `per` tokens a delta, with each fence cut once, before its
 * last backtick, and nowhere else. Weights (tokens, what pacing waits for) follow their pieces. */
export function fenceChunks(pieces: readonly string[], weights: readonly number[] | undefined, per: number): [text: string, weight: number][] {
  if (!pieces.length) return [];
  const text = pieces.join('');
  // Where each piece ends, and the delta boundaries the ordinary grouping would make.
  const ends: number[] = [];
  let at = 0;
  for (const p of pieces) ends.push((at += p.length));
  const cuts = new Set<number>();
  for (let i = per - 1; i < pieces.length - 1; i += per) cuts.add(ends[i]);
  for (const m of text.matchAll(FENCE)) {
    const from = m.index!;
    const to = from + m[0].length;
    for (const c of cuts) if (c > from && c < to) cuts.delete(c);
    cuts.add(to - 1);
  }
  const bounds = [...cuts].filter((c) => c > 0 && c < text.length).sort((a, b) => a - b);
  bounds.push(text.length);
  const out: [string, number][] = [];
  let from = 0;
  let p = 0;
  for (const to of bounds) {
    let weight = 0;
    // A piece counts where it ends: one cut inside it (a scenario's chunk holding a whole fence)
    // leaves its weight to the delta that completes it.
    for (; p < pieces.length && ends[p] <= to; p++) weight += weights ? weights[p] : 1;
    out.push([text.slice(from, to), weight]);
    from = to;
  }
  return out;
}

/** Each written frame in pieces: cut inside its first line's field name (`da` + `ta: ...`), inside
 * its first and last multi-byte characters, and between the two line feeds that end the event. */
export function* splitBytes(frames: Iterable<Frame>): Generator<Frame> {
  for (const f of frames) {
    if (!('bytes' in f)) {
      yield f;
      continue;
    }
    const bytes = bytesOf(f.bytes);
    let from = 0;
    let delayMs = Math.max(1, f.delayMs);
    for (const to of [...cutsOf(bytes), bytes.length]) {
      yield { delayMs, bytes: bytes.subarray(from, to), apart: true };
      from = to;
      delayMs = 1;
    }
  }
}

function cutsOf(bytes: Uint8Array): number[] {
  const cuts = [2];
  let first = -1;
  let last = -1;
  for (let i = 0; i < bytes.length; i++) {
    // A lead byte (11xxxxxx) starts a character of two to four bytes.
    if (bytes[i] >= 0xc0) {
      if (first < 0) first = i;
      last = i;
    }
  }
  if (first >= 0) cuts.push(first + 1);
  // Inside the last one, before its final byte: a 4-byte emoji is cut after three.
  if (last > first) cuts.push(last + seqLength(bytes[last]) - 1);
  if (bytes.length > 2 && bytes[bytes.length - 1] === 0x0a && bytes[bytes.length - 2] === 0x0a) cuts.push(bytes.length - 1);
  return [...new Set(cuts)].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b);
}

const seqLength = (lead: number) => (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2);
