// The request journal: what the mock received and how it answered, for inspection by tests and
// developers. Bounded in entries and in bytes: the oldest entries go first, and what went is
// counted, so a long session, or a flood of large requests, cannot exhaust memory. A large body is
// kept cut, and a body past the request limits (mock/core/limits.ts) is kept as text, never parsed.
// Bounded in what reading it costs too: what an entry shows is settled when it is stored (whether
// its body is JSON, what it asked), a read splices the stored bodies into its answer as they came
// (a thousand bodies of tiny arrays would be millions of objects parsed), and one read answers at
// most READ_BYTES_MAX of JSON, the newest entries first, saying how many it left out.
import { askedOf } from './asked.js';
import { textOf, utf8Length } from './bytes.js';
import type { ControlTouch } from './control.js';
import { LONG_TEXT } from './limits.js';

export const JOURNAL_PATH = '/__mock/requests';

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
/** The most one read answers, in bytes of its JSON (GET /__mock/requests, mock.journal.list()):
 * the newest entries that fit, the rest a page away. A full journal of 64 KiB bodies is eight
 * pages; a test's journal, one. */
export const READ_BYTES_MAX = 8 * 1024 * 1024;

/** What the core tells the journal of a request, besides its body. */
export type Arrival = Omit<JournalEntry, 'seq' | 'time' | 'body' | 'body_cut'>;

/** What the core learned of a body by reading it to answer: not learned a second time. */
export interface BodyRead {
  /** It parsed as JSON (as UTF-8). */
  json: boolean;
  /** The start of its last user message (asked.ts). */
  asked: string | null;
}

/** What the core knows of a body besides its bytes. */
export interface BodyHints {
  /** What cutting its long strings would save (BodyShape.longText): a large body is parsed to be
   * cut only when that is enough. */
  longText?: number;
  /** The body as the core parsed it, when it did: not parsed a second time to be cut. */
  parsed?: unknown;
  /** Whether it is JSON, and what it asked, when the core read it. */
  read?: BodyRead;
  /** Past the request limits: kept as text, never parsed. */
  past?: boolean;
  /** Its size, when the transport kept only its start. */
  size?: number;
}

/** Kept as it came (bytes or text, or its cut) and never parsed to be listed: a parsed body per
 * entry would give the collector a thousand object trees to trace under a load of distinct
 * requests. `text`: shown as a string (not JSON, or cut to its start); else it is JSON text. */
export type Stored = Omit<JournalEntry, 'time' | 'body'> & { at: number; raw: string | Uint8Array | undefined; text: boolean; asked: string | null; cost: number };

/** Which entries a read asks for: numbers below `before`, above `after` (then the oldest first
 * are chosen, to read on from a number already seen), at most `limit` of them. */
export interface JournalQuery {
  before?: number;
  after?: number;
  limit?: number;
}

/** One read of the journal: `data` oldest first, as the journal holds them. */
export interface JournalPage {
  object: 'list';
  data: JournalEntry[];
  /** Requests the journal let go (its bounds) since it started or was last cleared. */
  dropped: number;
  /** Entries the query asked for that this read left out (past READ_BYTES_MAX, or `limit`). */
  left_out: number;
  has_more: boolean;
  /** The read that goes on where this one stopped (`/__mock/requests?before=SEQ`), or null. */
  next: string | null;
}

/** A read as its entries' JSON texts, before they are joined (HTTP) or parsed (in-process). */
interface Read {
  lines: string[];
  left: number;
  next: string | null;
}

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
    // One literal of every field, not the arrival given more: a property added to an object after
    // it was made moves the object to a new shape, and seven of them did so for every request.
    const stored: Stored = {
      seq: 0,
      at: 0,
      method: arrival.method,
      path: arrival.path,
      key_id: arrival.key_id,
      scenario: arrival.scenario,
      faults: arrival.faults,
      status: arrival.status,
      stream: arrival.stream,
      timing: arrival.timing,
      content: arrival.content,
      model: arrival.model,
      control: arrival.control,
      raw,
      body_cut: null,
      text: false,
      asked: null,
      cost: 0,
    };
    if (raw !== undefined) keep(stored, raw, hints);
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

  /** The entry numbered `seq`, while the ring holds it. */
  private entry(seq: number): Stored | undefined {
    const age = this.seq - seq;
    if (!Number.isInteger(seq) || age < 0 || age >= this.count) return undefined;
    const stored = this.ring[(this.next - 1 - age + this.size) % this.size];
    return stored?.seq === seq ? stored : undefined;
  }

  /** One entry by its number, while the ring holds it: its body parsed (one body, bounded). */
  get(seq: number): JournalEntry | undefined {
    const stored = this.entry(seq);
    return stored && (JSON.parse(lineOf(stored).text) as JournalEntry);
  }

  /** Oldest first, as stored: what a summary needs, with no body read. The latest `last` only, if given. */
  stored(last = this.count): Stored[] {
    const n = Math.min(Math.max(0, last), this.count);
    const out: Stored[] = [];
    for (let i = this.count - n; i < this.count; i++) out.push(this.ring[(this.next - this.count + i + this.size) % this.size]!);
    return out;
  }

  /** Oldest first: the newest entries that fit one read (READ_BYTES_MAX), as `page` chooses them. */
  list(query: JournalQuery = {}): JournalEntry[] {
    return this.page(query).data;
  }

  /** One read, its entries parsed: the same entries, and the same JSON, as GET /__mock/requests. */
  page(query: JournalQuery = {}): JournalPage {
    const read = this.read(query);
    return { object: 'list', data: read.lines.map((line) => JSON.parse(line) as JournalEntry), dropped: this.lost, left_out: read.left, has_more: read.left > 0, next: read.next };
  }

  /** One read as the JSON text GET /__mock/requests answers: the stored bodies spliced in as they
   * came, nothing parsed, so that it costs what it answers. */
  pageText(query: JournalQuery = {}): string {
    const read = this.read(query);
    return `{"object":"list","data":[${read.lines.join(',')}],"dropped":${this.lost},"left_out":${read.left},"has_more":${read.left > 0},"next":${JSON.stringify(read.next)}}`;
  }

  /** The entries a query asks for, newest first (oldest first after `after`) until READ_BYTES_MAX
   * of JSON or `limit`; at least one, so that reading on always moves. */
  private read({ before, after, limit = Number.POSITIVE_INFINITY }: JournalQuery): Read {
    const lo = Math.max(this.seq - this.count + 1, (after ?? 0) + 1);
    const hi = Math.min(this.seq, (before ?? Number.POSITIVE_INFINITY) - 1);
    const forward = after !== undefined;
    const step = forward ? 1 : -1;
    const lines: string[] = [];
    // The list's own fields, at most (next with three numbers of 16 digits).
    let bytes = 256;
    let seq = forward ? lo : hi;
    for (; seq >= lo && seq <= hi && lines.length < limit; seq += step) {
      const line = lineOf(this.entry(seq)!);
      if (lines.length && bytes + line.bytes + 1 > READ_BYTES_MAX) break;
      lines.push(line.text);
      bytes += line.bytes + 1;
    }
    const left = Math.max(0, forward ? hi - seq + 1 : seq - lo + 1);
    if (!forward) lines.reverse();
    if (!left) return { lines, left, next: null };
    const more = new URLSearchParams();
    if (forward) more.set('after', String(seq - 1));
    else more.set('before', String(seq + 1));
    if (forward && before !== undefined) more.set('before', String(before));
    if (!forward && after !== undefined) more.set('after', String(after));
    if (Number.isFinite(limit)) more.set('limit', String(limit));
    return { lines, left, next: `${JOURNAL_PATH}?${more}` };
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

/** What an entry keeps of its body, and shows: settled once, here. */
function keep(stored: Stored, raw: string | Uint8Array, hints: BodyHints): void {
  const { past, longText, read } = hints;
  if (past) keepStart(stored, raw, hints.size ?? raw.length);
  else if (raw.length > BODY_KEPT_MAX) {
    const strings = read?.json !== false && (longText === undefined || raw.length - longText <= BODY_KEPT_MAX);
    if (strings && keepStrings(stored, raw, hints)) return;
    // What it asked is the core's word, or the cut's, which parsed it.
    if (read) stored.asked = read.asked;
    keepStart(stored, raw, hints.size ?? raw.length);
  } else {
    // Read by the core to be answered, or (refused before it was read: a wrong key) read here, once.
    const known = read ?? readOf(raw);
    stored.text = !known.json;
    stored.asked = known.asked;
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A body the core did not read: within BODY_KEPT_MAX, so reading it is bounded. Bytes that are
 * not UTF-8 are text: spliced into the journal's JSON, they would not read back the same. */
function readOf(raw: string | Uint8Array): BodyRead {
  try {
    const body: unknown = JSON.parse(typeof raw === 'string' ? raw : STRICT_UTF8.decode(raw));
    return { json: true, asked: askedOf(body) };
  } catch {
    return { json: false, asked: null };
  }
}

/** A large body whose long strings are most of it: its JSON with each string past LONG_TEXT
 * characters cut (never past the limits); false when it is not JSON or still too large. */
function keepStrings(stored: Stored, raw: string | Uint8Array, hints: BodyHints): boolean {
  try {
    // Within the limits: parsing and serializing it again are bounded in depth and size.
    const body: unknown = hints.parsed ?? JSON.parse(textOf(raw));
    const short = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'string' && v.length > LONG_TEXT ? cutText(v, LONG_TEXT) : v));
    stored.asked = hints.read?.asked ?? askedOf(body);
    if (short.length > BODY_KEPT_MAX) return false;
    stored.raw = short;
    stored.body_cut = { bytes: hints.size ?? raw.length, kept: 'strings' };
    return true;
  } catch {
    return false;
  }
}

/** Its first BODY_TEXT_MAX characters, as text. */
function keepStart(stored: Stored, raw: string | Uint8Array, bytes: number): void {
  stored.text = true;
  if (raw.length <= BODY_TEXT_MAX && bytes === raw.length) return;
  stored.raw = textOf(raw.slice(0, BODY_TEXT_MAX));
  stored.body_cut = { bytes, kept: 'start' };
}

const cutText = (text: string, max: number) => `${text.slice(0, max)}… [${text.length.toLocaleString('en-US')} characters]`;

/** An entry's JSON text and its size in bytes: its own fields serialized, its body spliced in as
 * stored (JSON text as it came; or text, as a string, cut). */
function lineOf(s: Stored): { text: string; bytes: number } {
  const own = JSON.stringify({
    seq: s.seq,
    time: new Date(s.at).toISOString(),
    method: s.method,
    path: s.path,
    key_id: s.key_id,
    body_cut: s.body_cut,
    scenario: s.scenario,
    faults: s.faults,
    status: s.status,
    stream: s.stream,
    timing: s.timing,
    content: s.content,
    model: s.model,
    control: s.control,
  });
  let body: string;
  let bodyBytes: number;
  if (s.raw === undefined) {
    body = 'null';
    bodyBytes = 4;
  } else if (!s.text) {
    body = textOf(s.raw);
    // JSON read as UTF-8: its bytes are its size, uncounted.
    bodyBytes = typeof s.raw === 'string' ? utf8Length(body) : s.raw.length;
  } else {
    const text = textOf(s.raw);
    body = JSON.stringify(text.length > BODY_TEXT_MAX ? cutText(text, BODY_TEXT_MAX) : text);
    bodyBytes = utf8Length(body);
  }
  return { text: `${own.slice(0, -1)},"body":${body}}`, bytes: utf8Length(own) + 8 + bodyBytes };
}
