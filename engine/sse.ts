// Strict server-sent-events parser (WHATWG HTML, "Interpreting an event stream") that also
// reports how a stream is framed, so a conformance check can tell "legal but unusual" from
// "a browser would lose this".
//
// Offsets: byte offsets into the input when given a Uint8Array; UTF-16 code-unit offsets
// (string indices) when given a string. Every finding's excerpt starts at its offset.

import { isAscii, isUtf8 } from 'node:buffer';

export interface SseEvent {
  /** data buffer after the WHATWG rules: several data: lines joined with "\n", the final trailing LF removed */
  data: string;
  /** value of the last event: field, if any ('' when sent empty: a browser then uses "message") */
  event?: string;
  /** last id: field value in this event (ids containing NUL are ignored per spec) */
  id?: string;
  /** What a browser would put in MessageEvent.lastEventId: the spec's last event ID buffer is
   * never reset on dispatch, so an id carries over to later events that send none. */
  lastEventId: string;
  /** retry: value if all ASCII digits (the last valid one in this event's lines) */
  retry?: number;
  /** offset where the event's first line starts and where its terminating blank line ends
   * (comment lines before its fields count as its lines; blank lines before it do not) */
  start: number;
  end: number;
  /** count of data: lines that made up the event */
  dataLines: number;
}

export type SseFindingKind =
  | 'comment' // a line starting with ':'
  | 'event-field'
  | 'id-field'
  | 'retry-field'
  | 'unknown-field' // field name other than data/event/id/retry (legal, ignored)
  | 'data-no-space' // "data:x" (legal)
  | 'multi-line-data' // an event with 2+ data lines (legal)
  | 'mixed-line-endings' // more than one of LF, CRLF, CR used (legal)
  | 'cr-line-ending'
  | 'crlf-line-ending'
  | 'bom' // leading U+FEFF (stripped, legal)
  | 'invalid-utf8' // bytes that are not valid UTF-8 (decoded with U+FFFD)
  | 'unterminated-event' // bytes after the last blank line that form an incomplete event (discarded per spec)
  | 'event-without-data'; // a blank line dispatching nothing because data buffer was empty though other fields were set

export interface SseFinding {
  kind: SseFindingKind;
  offset: number;
  excerpt: string;
}

export interface SseParse {
  events: SseEvent[];
  /** Sorted by offset. Once-per-stream kinds: bom, invalid-utf8, cr-line-ending,
   * crlf-line-ending, mixed-line-endings, unterminated-event; the others once per occurrence. */
  findings: SseFinding[];
  /** text after the last blank line that never got its terminating blank line, '' if none */
  tail: string;
}

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const COLON = 0x3a;

export const MAX_EXCERPT = 120;
// Enough raw input for MAX_EXCERPT characters even at 4 bytes each, so excerpts never decode
// (or escape) a whole multi-megabyte line.
const EXCERPT_WINDOW = MAX_EXCERPT * 4 + 4;

/** The input seen through one interface, so one scanner serves bytes and strings alike. All
 * bytes the grammar cares about (CR, LF, ':', ' ') are ASCII, which UTF-8 never uses inside a
 * multi-byte sequence, so scanning raw bytes finds the same lines as scanning decoded text. */
interface Source {
  readonly length: number;
  at(i: number): number;
  indexOf(code: number, from: number): number;
  text(start: number, end: number): string;
}

function byteSource(bytes: Uint8Array): Source {
  // ignoreBOM: a value such as "data:\uFEFFx" is decoded from its own slice; the default
  // decoder would silently drop that U+FEFF as if it started a stream.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  return {
    length: bytes.length,
    at: (i) => bytes[i],
    indexOf: (code, from) => bytes.indexOf(code, from),
    // Decoding slice by slice gives the same text as decoding the whole stream: slices end
    // at ASCII bytes, and the WHATWG decoder ends a broken sequence at an ASCII byte exactly
    // as it does at end of input (one U+FFFD).
    text: (start, end) => decoder.decode(bytes.subarray(start, end)),
  };
}

function stringSource(s: string): Source {
  return {
    length: s.length,
    at: (i) => s.charCodeAt(i),
    indexOf: (code, from) => s.indexOf(String.fromCharCode(code), from),
    text: (start, end) => s.slice(start, end),
  };
}

/** First byte sequence the WHATWG UTF-8 decoder would replace with U+FFFD (its maximal
 * subpart), or undefined. */
export function firstInvalidUtf8(bytes: Uint8Array): { offset: number; length: number } | undefined {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return { offset: i, length: 1 };
    let j = i + 1;
    for (let k = 0; k < need; k++, j++) {
      if (j >= n || bytes[j] < lo || bytes[j] > hi) return { offset: i, length: j - i };
      lo = 0x80;
      hi = 0xbf;
    }
    i = j;
  }
  return undefined;
}

function escapeChar(ch: string): string {
  switch (ch) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    case '\\':
      // Escaped so a literal backslash-n in the stream never reads like a line break.
      return '\\\\';
  }
  const c = ch.codePointAt(0)!;
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return `\\x${c.toString(16).toUpperCase().padStart(2, '0')}`;
  // Invisible or line-breaking in a report, or not a character at all (lone surrogate).
  if (c === 0x2028 || c === 0x2029 || c === 0xfeff || (c >= 0xd800 && c <= 0xdfff)) {
    return `\\u${c.toString(16).toUpperCase()}`;
  }
  return ch;
}

/** At most MAX_EXCERPT characters, control characters escaped, '…' marking a cut. */
export function excerpt(text: string): string {
  let out = '';
  let cut = -1;
  for (const ch of text) {
    const piece = escapeChar(ch);
    if (cut < 0 && out.length + piece.length > MAX_EXCERPT - 1) cut = out.length;
    out += piece;
    if (out.length > MAX_EXCERPT) return `${out.slice(0, cut)}…`;
  }
  return out;
}

function hexBytes(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

type Field = 'data' | 'event' | 'id' | 'retry' | undefined;

// Field names compare literally (no case folding), and all known names are ASCII, so raw
// code units suffice and unknown names are never decoded.
function fieldName(src: Source, start: number, end: number): Field {
  const len = end - start;
  if (len === 4) return named(src, start, 'data') ? 'data' : undefined;
  if (len === 2) return named(src, start, 'id') ? 'id' : undefined;
  if (len === 5) return named(src, start, 'event') ? 'event' : named(src, start, 'retry') ? 'retry' : undefined;
  return undefined;
}

/** Whether the field name at `start`, as long as `name`, is `name` (no closure a line). */
function named(src: Source, start: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (src.at(start + i) !== name.charCodeAt(i)) return false;
  return true;
}

const ENDINGS = { lf: 1, crlf: 2, cr: 4 } as const;

function toInput(input: unknown): Uint8Array | string {
  if (typeof input === 'string') return input;
  if (input instanceof Uint8Array) {
    // TextDecoder refuses views of shared memory; a private copy keeps "never throws" true.
    return typeof SharedArrayBuffer !== 'undefined' && input.buffer instanceof SharedArrayBuffer ? input.slice() : input;
  }
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return toInput(new Uint8Array(input.buffer, input.byteOffset, input.byteLength));
  try {
    return String(input ?? '');
  } catch {
    // An object whose toString throws: there is no text to parse.
    return '';
  }
}

export function parseSse(input: Uint8Array | string): SseParse {
  const raw = toInput(input);
  // Bytes all ASCII (most streams) are read as their Latin-1 text: each byte is one character at the
  // same offset, so the lines, offsets and values are the bytes' own, and a value is a slice of one
  // string, not a decoding of its own (TextDecoder cost a streamed answer of 17 events 19,000
  // instructions under callgrind).
  const src = typeof raw === 'string' ? stringSource(raw) : isAscii(raw) ? stringSource(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1')) : byteSource(raw);
  const len = src.length;
  const events: SseEvent[] = [];
  const findings: SseFinding[] = [];
  const report = (kind: SseFindingKind, offset: number, end: number) => findings.push({ kind, offset, excerpt: excerpt(src.text(offset, Math.min(end, offset + EXCERPT_WINDOW))) });

  let pos = 0;
  if (typeof raw === 'string' ? raw.charCodeAt(0) === 0xfeff : raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) {
    pos = typeof raw === 'string' ? 1 : 3;
    report('bom', 0, pos);
  }
  // isUtf8 is native and fast; the JS scan only runs to locate a defect already known to exist.
  if (typeof raw !== 'string' && !isUtf8(raw)) {
    const bad = firstInvalidUtf8(raw);
    if (bad) findings.push({ kind: 'invalid-utf8', offset: bad.offset, excerpt: hexBytes(raw.subarray(bad.offset, bad.offset + bad.length)) });
  }

  // Per-event buffers. The last event ID buffer lives outside them: the spec never resets it.
  let lastEventId = '';
  let blockStart = -1;
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  let retry: number | undefined;
  // event/id/unknown fields that a data-less blank line would throw away. retry is not
  // counted: it takes effect the moment it is read, so nothing is lost.
  let droppableFields = false;
  let tailStart = pos;
  let endingsSeen = 0;

  const dispatch = (end: number) => {
    if (data.length > 0) {
      // One data: line, most events: its value, not a join.
      const ev: SseEvent = { data: data.length === 1 ? data[0] : data.join('\n'), lastEventId, start: blockStart, end, dataLines: data.length };
      if (event !== undefined) ev.event = event;
      if (id !== undefined) ev.id = id;
      if (retry !== undefined) ev.retry = retry;
      events.push(ev);
      if (data.length > 1) report('multi-line-data', blockStart, end);
    } else if (droppableFields) {
      report('event-without-data', blockStart, end);
    }
    blockStart = -1;
    data = [];
    event = id = retry = undefined;
    droppableFields = false;
  };

  // Next CR, LF and ':' at or after pos, cached: searching afresh for each line would rescan
  // to the end of the input whenever one of them is rare, which is quadratic.
  let nextCr = -2;
  let nextLf = -2;
  let nextColon = -2;
  while (pos < len) {
    if (nextCr !== -1 && nextCr < pos) nextCr = src.indexOf(CR, pos);
    if (nextLf !== -1 && nextLf < pos) nextLf = src.indexOf(LF, pos);
    const lineEnd = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextCr, nextLf);
    // A line without its end of line is discarded at end of input, never processed.
    if (lineEnd === -1) break;
    const crlf = src.at(lineEnd) === CR && src.at(lineEnd + 1) === LF;
    const next = lineEnd + (crlf ? 2 : 1);

    const ending = crlf ? ENDINGS.crlf : src.at(lineEnd) === CR ? ENDINGS.cr : ENDINGS.lf;
    if (!(endingsSeen & ending)) {
      if (ending === ENDINGS.cr) report('cr-line-ending', pos, next);
      if (ending === ENDINGS.crlf) report('crlf-line-ending', pos, next);
      // Only on the step from one kind to two: a third kind adds nothing to "mixed".
      if (endingsSeen && !(endingsSeen & (endingsSeen - 1))) report('mixed-line-endings', pos, next);
      endingsSeen |= ending;
    }

    if (lineEnd === pos) {
      dispatch(next);
      tailStart = next;
    } else {
      if (blockStart < 0) blockStart = pos;
      if (src.at(pos) === COLON) {
        report('comment', pos, lineEnd);
      } else {
        if (nextColon !== -1 && nextColon < pos) nextColon = src.indexOf(COLON, pos);
        const nameEnd = nextColon !== -1 && nextColon < lineEnd ? nextColon : lineEnd;
        let valueStart = nameEnd < lineEnd ? nameEnd + 1 : lineEnd;
        const spaced = valueStart < lineEnd && src.at(valueStart) === SPACE;
        if (spaced) valueStart++;
        switch (fieldName(src, pos, nameEnd)) {
          case 'data':
            data.push(src.text(valueStart, lineEnd));
            if (valueStart < lineEnd && !spaced) report('data-no-space', pos, lineEnd);
            break;
          case 'event':
            event = src.text(valueStart, lineEnd);
            droppableFields = true;
            report('event-field', pos, lineEnd);
            break;
          case 'id': {
            const v = src.text(valueStart, lineEnd);
            if (!v.includes('\0')) id = lastEventId = v;
            droppableFields = true;
            report('id-field', pos, lineEnd);
            break;
          }
          case 'retry': {
            const v = src.text(valueStart, lineEnd);
            if (/^[0-9]+$/.test(v)) retry = Number(v);
            report('retry-field', pos, lineEnd);
            break;
          }
          default:
            droppableFields = true;
            report('unknown-field', pos, lineEnd);
        }
      }
    }
    pos = next;
  }

  const tail = tailStart < len ? src.text(tailStart, len) : '';
  if (tail) report('unterminated-event', tailStart, len);
  // Stable sort: multi-line-data is only known at dispatch, after its event's field findings.
  findings.sort((a, b) => a.offset - b.offset);
  return { events, findings, tail };
}
