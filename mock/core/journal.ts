// The request journal: what the mock received and how it answered, for inspection by tests and
// developers. Bounded in entries and in bytes: the oldest entries go first, and what went is
// counted, so a long session, or a flood of large requests, cannot exhaust memory. A large body is
// kept cut, and a body past the request limits (mock/core/limits.ts) is kept as text, never parsed:
// reading an entry costs what its stored body costs, whatever was sent.
import { textOf } from './bytes.js';
import type { ControlTouch } from './control.js';
import { LONG_TEXT } from './limits.js';

/** How a body was kept when it was not kept whole: `strings` (its JSON whole, each string past
 * 1,000 characters cut, as an image's base64 is), or `start` (its first 4,096 characters, as text). */
export interface BodyCut {
  /** The body's size as received. */
  bytes: number;
  kept: 'strings' | 'start';
}

export interface JournalEntry {
  seq: number;
  time: string;
  method: string;
  path: string;
  /** The key's id from the configuration; never the key. Null when the request carried no known key. */
  key_id: string | null;
  /** The parsed JSON body, or its text (cut) when it is not JSON or is past the request limits. */
  body: unknown;
  /** Null when the body is kept whole. */
  body_cut: BodyCut | null;
  scenario: string | null;
  faults: string[];
  status: number;
  stream: boolean;
  /** The pacing applied to the reply (time to first token, tokens per second), if any. */
  timing: unknown;
  /** The content profile and split in effect for a completion (`markdown; split=bytes`; the profile
   * shapes generated free text, not scripted, recorded or structured replies); null for anything else. */
  content: string | null;
  /** The model a chat request named; null for anything else, or a body that names none. */
  model: string | null;
  /** The live control's settings that touched this request (mock.control, /__mock/control); null when none did. */
  control: ControlTouch[] | null;
}

const BODY_TEXT_MAX = 4096;
/** A body up to this size is kept as it came; a larger one is kept cut. */
export const BODY_KEPT_MAX = 64 * 1024;
/** What an entry costs besides its body and path, counted against the bytes bound. */
const ENTRY_COST = 512;
export const DEFAULT_JOURNAL_SIZE = 1000;
export const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024;

/** What the core tells the journal of a request, besides its body. */
export type Arrival = Omit<JournalEntry, 'seq' | 'time' | 'body' | 'body_cut'>;

/** What the core knows of a body besides its bytes. */
export interface BodyHints {
  /** What cutting its long strings would save (BodyShape.longText): a large body is parsed to be
   * cut only when that is enough. */
  longText?: number;
  /** The body as the core parsed it, when it did: not parsed a second time to be cut. */
  parsed?: unknown;
  /** Past the request limits: kept as text, never parsed. */
  past?: boolean;
  /** Its size, when the transport kept only its start. */
  size?: number;
}

/** Kept as it came (bytes or text, or its cut) and parsed only when read: a parsed body per entry
 * would give the collector a thousand object trees to trace under a load of distinct requests. */
export type Stored = Omit<JournalEntry, 'time' | 'body'> & { at: number; raw: string | Uint8Array | undefined; text: boolean; cost: number };

/** A ring: adding is constant time however full it is (a large body costs its cut once), and the
 * time is formatted only when read. */
export class Journal {
  private readonly ring: (Stored | undefined)[];
  private next = 0;
  private count = 0;
  private seq = 0;
  private held = 0;
  private lost = 0;
  /** Told of each entry as it is added (the dashboard, while a page listens); unset, it costs nothing. */
  watcher?: (entry: Stored) => void;

  constructor(
    readonly size = DEFAULT_JOURNAL_SIZE,
    readonly maxBytes = DEFAULT_JOURNAL_BYTES,
  ) {
    this.ring = new Array(Math.max(0, size));
  }

  /** Requests not kept, or pushed out by newer ones, since the journal started or was last cleared. */
  get dropped(): number {
    return this.lost;
  }

  /** The bytes the entries held now are counted as. */
  get bytes(): number {
    return this.held;
  }

  /** `raw`: the body as it came. */
  add(arrival: Arrival, raw: string | Uint8Array | undefined, hints: BodyHints = {}): void {
    if (this.size <= 0) {
      this.lost++;
      return;
    }
    const stored = arrival as Stored;
    stored.raw = raw;
    stored.body_cut = null;
    const { past, longText } = hints;
    stored.text = past === true;
    if (raw !== undefined && (past || raw.length > BODY_KEPT_MAX)) keepCut(stored, raw, hints, !past && (longText === undefined || raw.length - longText <= BODY_KEPT_MAX));
    stored.cost = ENTRY_COST + stored.path.length + (stored.raw?.length ?? 0);
    if (stored.cost > this.maxBytes) {
      this.lost++;
      return;
    }
    while (this.count && (this.count === this.size || this.held + stored.cost > this.maxBytes)) this.dropOldest();
    // Numbered when kept: the entries held are numbered without gaps, so one is found by its number.
    stored.seq = ++this.seq;
    stored.at = Date.now();
    this.ring[this.next] = stored;
    this.next = (this.next + 1) % this.size;
    this.count++;
    this.held += stored.cost;
    this.watcher?.(stored);
  }

  private dropOldest(): void {
    const at = (this.next - this.count + this.size) % this.size;
    this.held -= this.ring[at]!.cost;
    this.ring[at] = undefined;
    this.count--;
    this.lost++;
  }

  /** One entry by its number, while the ring still holds it. */
  get(seq: number): JournalEntry | undefined {
    const age = this.seq - seq;
    if (!Number.isInteger(seq) || age < 0 || age >= this.count) return undefined;
    const stored = this.ring[(this.next - 1 - age + this.size) % this.size];
    return stored && stored.seq === seq ? entryOf(stored) : undefined;
  }

  /** Oldest first, as stored: what a summary needs, with no body parsed. */
  stored(): Stored[] {
    const out: Stored[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.ring[(this.next - this.count + i + this.size) % this.size]!);
    return out;
  }

  /** Oldest first. */
  list(): JournalEntry[] {
    return this.stored().map(entryOf);
  }

  clear(): number {
    const n = this.count;
    this.ring.fill(undefined);
    this.count = 0;
    this.next = 0;
    this.held = 0;
    this.lost = 0;
    return n;
  }
}

/** A body kept cut: its JSON with long strings cut, when that may be enough (never past the limits),
 * else its start as text. */
function keepCut(stored: Stored, raw: string | Uint8Array, hints: BodyHints, strings: boolean): void {
  const bytes = hints.size ?? raw.length;
  if (strings) {
    try {
      // Within the limits: parsing and serializing it again are bounded in depth and size.
      const short = JSON.stringify(hints.parsed ?? JSON.parse(textOf(raw)), (_k, v: unknown) => (typeof v === 'string' && v.length > LONG_TEXT ? cutText(v, LONG_TEXT) : v));
      if (short.length <= BODY_KEPT_MAX) {
        stored.raw = short;
        stored.body_cut = { bytes, kept: 'strings' };
        return;
      }
    } catch {
      // Not JSON: its start, below.
    }
  }
  stored.text = true;
  if (raw.length <= BODY_TEXT_MAX && bytes === raw.length) return;
  stored.raw = textOf(raw.slice(0, BODY_TEXT_MAX));
  stored.body_cut = { bytes, kept: 'start' };
}

const cutText = (text: string, max: number) => `${text.slice(0, max)}… [${text.length.toLocaleString('en-US')} characters]`;

function entryOf({ at, raw, text, cost: _cost, ...rest }: Stored): JournalEntry {
  return { ...rest, body: raw === undefined ? null : text ? textOf(raw) : journalBody(raw), time: new Date(at).toISOString() };
}

function journalBody(raw: string | Uint8Array): unknown {
  const text = textOf(raw);
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: its text, cut.
  }
  return text.length > BODY_TEXT_MAX ? cutText(text, BODY_TEXT_MAX) : text;
}
