// The request journal: what the mock received and how it answered, for inspection by tests and
// developers. Bounded: the oldest entries go first, so a long session cannot exhaust memory.

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

export class Journal {
  private readonly entries: JournalEntry[] = [];
  private seq = 0;

  constructor(readonly size = DEFAULT_JOURNAL_SIZE) {}

  add(entry: Omit<JournalEntry, 'seq' | 'time'>): void {
    if (this.size <= 0) return;
    this.entries.push({ seq: ++this.seq, time: new Date().toISOString(), ...entry });
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
  }

  list(): readonly JournalEntry[] {
    return this.entries;
  }

  clear(): number {
    const n = this.entries.length;
    this.entries.length = 0;
    return n;
  }
}

export function journalBody(parsed: unknown, raw: string | Uint8Array | undefined): unknown {
  if (parsed !== undefined) return parsed;
  if (raw === undefined) return null;
  const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
  return text.length > BODY_TEXT_MAX ? `${text.slice(0, BODY_TEXT_MAX)}… [${text.length} characters]` : text;
}
