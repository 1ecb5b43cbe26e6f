// The request journal: what the mock received and how it answered, for inspection by tests and
// developers. Bounded: the oldest entries go first, so a long session cannot exhaust memory.
import { textOf } from './bytes.js';

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
}

const BODY_TEXT_MAX = 4096;
export const DEFAULT_JOURNAL_SIZE = 1000;

type Stored = Omit<JournalEntry, 'time'> & { at: number };

/** A ring: adding is constant time however full it is, and the time is formatted only when read. */
export class Journal {
  private readonly ring: (Stored | undefined)[];
  private next = 0;
  private count = 0;
  private seq = 0;

  constructor(readonly size = DEFAULT_JOURNAL_SIZE) {
    this.ring = new Array(Math.max(0, size));
  }

  add(entry: Omit<JournalEntry, 'seq' | 'time'>): void {
    if (this.size <= 0) return;
    const stored = entry as Stored;
    stored.seq = ++this.seq;
    stored.at = Date.now();
    this.ring[this.next] = stored;
    this.next = (this.next + 1) % this.size;
    if (this.count < this.size) this.count++;
  }

  /** Oldest first. */
  list(): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = 0; i < this.count; i++) {
      const { at, ...rest } = this.ring[(this.next - this.count + i + this.size) % this.size]!;
      out.push({ ...rest, time: new Date(at).toISOString() });
    }
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

export function journalBody(parsed: unknown, raw: string | Uint8Array | undefined): unknown {
  if (parsed !== undefined) return parsed;
  if (raw === undefined) return null;
  const text = textOf(raw);
  return text.length > BODY_TEXT_MAX ? `${text.slice(0, BODY_TEXT_MAX)}… [${text.length} characters]` : text;
}
