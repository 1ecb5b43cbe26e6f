// The request journal: what the mock received and how it answered, for inspection by tests and
// developers. Bounded: the oldest entries go first, so a long session cannot exhaust memory.
import { textOf } from './bytes.js';
import type { ControlTouch } from './control.js';

export interface JournalEntry {
  seq: number;
  time: string;
  method: string;
  path: string;
  /** The key's id from the configuration; never the key. Null when the request carried no known key. */
  key_id: string | null;
  /** The parsed JSON body, or its text (cut) when it is not JSON. */
  body: unknown;
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
export const DEFAULT_JOURNAL_SIZE = 1000;

/** Kept as it came (bytes or text) and parsed only when read: a parsed body per entry would give
 * the collector a thousand object trees to trace under a load of distinct requests. */
export type Stored = Omit<JournalEntry, 'time' | 'body'> & { at: number; raw: string | Uint8Array | undefined };

/** A ring: adding is constant time however full it is, and the time is formatted only when read. */
export class Journal {
  private readonly ring: (Stored | undefined)[];
  private next = 0;
  private count = 0;
  private seq = 0;
  /** Told of each entry as it is added (the dashboard, while a page listens); unset, it costs nothing. */
  watcher?: (entry: Stored) => void;

  constructor(readonly size = DEFAULT_JOURNAL_SIZE) {
    this.ring = new Array(Math.max(0, size));
  }

  add(entry: Omit<JournalEntry, 'seq' | 'time' | 'body'> & { raw: string | Uint8Array | undefined }): void {
    if (this.size <= 0) return;
    const stored = entry as Stored;
    stored.seq = ++this.seq;
    stored.at = Date.now();
    this.ring[this.next] = stored;
    this.next = (this.next + 1) % this.size;
    if (this.count < this.size) this.count++;
    this.watcher?.(stored);
  }

  /** One entry by its number, while the ring still holds it. */
  get(seq: number): JournalEntry | undefined {
    const age = this.seq - seq;
    if (!Number.isInteger(seq) || age < 0 || age >= this.count) return undefined;
    const stored = this.ring[(this.next - 1 - age + this.size) % this.size];
    return stored && stored.seq === seq ? entryOf(stored) : undefined;
  }

  /** Oldest first. */
  list(): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = 0; i < this.count; i++) out.push(entryOf(this.ring[(this.next - this.count + i + this.size) % this.size]!));
    return out;
  }

  clear(): number {
    const n = this.count;
    this.ring.fill(undefined);
    this.count = 0;
    this.next = 0;
    return n;
  }
}

function entryOf({ at, raw, ...rest }: Stored): JournalEntry {
  return { ...rest, body: journalBody(raw), time: new Date(at).toISOString() };
}

function journalBody(raw: string | Uint8Array | undefined): unknown {
  if (raw === undefined) return null;
  const text = textOf(raw);
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: its text, cut.
  }
  return text.length > BODY_TEXT_MAX ? `${text.slice(0, BODY_TEXT_MAX)}… [${text.length} characters]` : text;
}
