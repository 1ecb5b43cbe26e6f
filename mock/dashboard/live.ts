// What the dashboard's pages are told while they listen: each request as it arrives and again as its
// answer ends (with the start of what was asked and answered, its time to first byte and total
// time), and the control's state on each change. While no page listens the adapter follows no
// answer: each request costs a few numbers in the trail (its times, and the label of a key the mock
// does not know), so that a page opened later shows those rows as it would have shown them live.
// While pages listen, rows are sent in batches (one serialization for all pages, a few times a
// second), and only the newest when requests come faster than a page reads.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Mock } from '../core/handle.js';
import type { Stored } from '../core/journal.js';
import { isRaw, isStream, type Frame, type MockReply } from '../core/types.js';
import { bearerToken } from '../core/bearer.js';
import { answeredOf, streamedOf } from './preview.js';
import { Trail } from './trail.js';

/** A request's summary line, as pages show it (no body: a page asks for one entry's detail). */
export interface Row {
  seq: number;
  /** Epoch milliseconds. */
  at: number;
  method: string;
  path: string;
  key_id: string | null;
  /** The key id, or a short salted hash of a key the mock does not know (never the key). */
  key: string | null;
  model: string | null;
  scenario: string | null;
  faults: string[];
  content: string | null;
  control: unknown;
  status: number;
  stream: boolean;
  /** From the request's arrival to the answer's first byte, and to its end; null until then. */
  ttfb_ms: number | null;
  total_ms: number | null;
  /** The answer stopped before its end (a fault reset the connection, or the client left): a 200
   * whose stream was dropped is no success. Null until it ended. */
  cut: boolean | null;
  /** A refusal's message, field and code. */
  error: { message: string; param: string | null; code: string | null } | null;
  /** The start of the last user message of a chat request. */
  asked: string | null;
  /** The start of the answer (its text, its calls, its refusal, an error's message) once it ended;
   * null before, or when no page was open to see it. */
  answered: string | null;
}

/** What one answer was, kept (while pages listen) for its detail: the body, or the stream's pieces
 * with their times from the request's arrival. The key stays here, in memory, to write the curl. */
export interface Followed {
  row: Row;
  authorization?: string;
  headers: Record<string, string>;
  raw: string | Uint8Array | undefined;
  answer?: { status: number; headers: Record<string, string>; body?: string | Uint8Array; stream?: Pieces; raw?: Uint8Array };
}

/** A stream's frames as they went, and when (ms from the request's arrival): two arrays, not an
 * object per frame, for this runs for every piece of every stream while a page listens. */
export interface Pieces {
  frames: Frame[];
  times: number[];
}

/** Headers that change the mock's answer: a replay sends them again. */
const REPLAYED = ['content-type', 'x-mock-fault', 'x-mock-content'];
const FLUSH_MS = 100;
/** Rows per batch at most: a page keeps a few hundred, so a faster flow sends only the newest. */
const BATCH_MAX = 500;
/** Requests followed per batch at most (2,000 a second): a page shows a few hundred rows, and past
 * this a flood (a load test, a fuzz run) is sampled, with the rest counted, so that the page's cost
 * to the mock stops growing with the load. */
const FOLLOW_MAX = 200;
/** Rows a page gets when it opens; the rows of followed requests are kept as long, answer previews included. */
const BACKFILL = 300;
/** Answers kept for their detail: the latest. Kept longer, a flood of streams would carry every
 * piece into the collector's old generation (measured: a third of the mock's stream throughput). */
const FOLLOWED_MAX = 100;
const KEEPALIVE_MS = 15_000;

export class Live {
  private readonly pages = new Set<ServerResponse>();
  private readonly followed = new Map<number, Followed>();
  private readonly rows = new Map<number, Row>();
  private readonly trail: Trail;
  private readonly queue = new Map<number, Row>();
  private pending: Stored | undefined;
  private timer: NodeJS.Timeout | undefined;
  private keepalive: NodeJS.Timeout | undefined;
  private controlChanged = false;
  private followedNow = 0;
  private skipped = 0;
  /** The journal's count of dropped requests, as the pages were last told it. */
  private toldDropped = 0;
  /** Tells a page that reconnects whether it met the same mock (same journal) or a new one. */
  private readonly instance = randomBytes(6).toString('hex');
  private readonly salt = randomBytes(16);

  constructor(private readonly mock: Mock) {
    this.trail = new Trail(mock.journal.size);
    // handle() is synchronous: the entry it journals is the request follow() is then given.
    mock.journal.watcher = (entry) => (this.pending = entry);
  }

  get listening(): boolean {
    return this.pages.size > 0;
  }

  /** A page's event stream: the state now, the latest requests, then everything as it happens. */
  attach(res: ServerResponse, headers: Record<string, string>): void {
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    // Summaries only, what was asked among them, kept as each was stored: no body is read.
    const rows = this.mock.journal.stored(BACKFILL).map((e) => this.rows.get(e.seq) ?? this.historyRow(e));
    this.toldDropped = this.mock.journal.dropped;
    res.write(
      `retry: 1000\n\nevent: hello\ndata: ${JSON.stringify({ instance: this.instance })}\n\nevent: control\ndata: ${JSON.stringify(this.mock.control.get())}\n\nevent: rows\ndata: ${JSON.stringify(rows)}\n\n${journalEvent(this.toldDropped)}`,
    );
    this.pages.add(res);
    res.once('close', () => this.detach(res));
    if (this.pages.size === 1) {
      this.mock.control.onChange = () => this.changed();
      this.keepalive = setInterval(() => this.broadcast(': keep-alive\n\n'), KEEPALIVE_MS).unref();
    }
  }

  private detach(res: ServerResponse): void {
    this.pages.delete(res);
    if (this.pages.size) return;
    this.mock.control.onChange = undefined;
    this.queue.clear();
    clearInterval(this.keepalive);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Every page is closed (the server stops). */
  close(): void {
    for (const res of this.pages) res.end();
  }

  /** The request the core just journaled (handle is synchronous: it is this one), timed to the end
   * of its answer, and followed (its answer kept) while a page listens; the reply comes back to be
   * written, a stream wrapped to see its pieces go. */
  follow(reply: MockReply, headers: IncomingHttpHeaders, res: ServerResponse, t0: number): MockReply {
    const entry = this.pending;
    this.pending = undefined;
    if (!entry) return reply;
    const authorization = typeof headers.authorization === 'string' ? headers.authorization : undefined;
    const label = !entry.key_id && authorization ? this.label(authorization) : undefined;
    this.trail.start(entry.seq, label);
    if (!this.listening || this.followedNow >= FOLLOW_MAX) {
      if (this.listening) this.skipped++;
      return this.timed(entry.seq, reply, res, t0);
    }
    this.followedNow++;
    const f: Followed = { row: rowOf(entry, reply), authorization, headers: {}, raw: entry.raw };
    if (label) f.row.key = label;
    for (const h of REPLAYED) if (typeof headers[h] === 'string') f.headers[h] = headers[h] as string;
    this.keep(f);
    this.push(f.row);
    res.once('close', () => {
      f.row.total_ms = Math.round(performance.now() - t0);
      f.row.ttfb_ms ??= f.row.total_ms;
      f.row.cut = !res.writableFinished;
      this.trail.firstByte(f.row.seq, f.row.ttfb_ms);
      this.trail.end(f.row.seq, f.row.total_ms, f.row.cut);
      const a = f.answer;
      f.row.answered = a?.stream ? streamedOf(a.stream.frames) : a?.body !== undefined ? answeredOf(a.body) : null;
      this.push(f.row);
    });
    if (isRaw(reply)) {
      f.answer = { status: 0, headers: {}, raw: reply.raw };
      return reply;
    }
    if (!isStream(reply)) {
      f.answer = { status: reply.status, headers: reply.headers, body: reply.body };
      return reply;
    }
    const pieces: Pieces = { frames: [], times: [] };
    f.answer = { status: reply.status, headers: reply.headers, stream: pieces };
    return {
      ...reply,
      stream: tapped(reply.stream, (frame) => {
        const at = performance.now() - t0;
        f.row.ttfb_ms ??= Math.round(at);
        pieces.frames.push(frame);
        pieces.times.push(at);
      }),
    };
  }

  /** A request no page follows: only its times, into the trail (a stream's first piece seen go). */
  private timed(seq: number, reply: MockReply, res: ServerResponse, t0: number): MockReply {
    res.once('close', () => this.trail.end(seq, Math.round(performance.now() - t0), !res.writableFinished));
    if (!isStream(reply)) return reply;
    return { ...reply, stream: firstSent(reply.stream, () => this.trail.firstByte(seq, Math.round(performance.now() - t0))) };
  }

  /** A row of the journal that no page followed: its times and key label from the trail. */
  private historyRow(e: Stored): Row {
    const row = rowOf(e, undefined);
    const t = this.trail.get(e.seq);
    if (t) {
      row.key ??= t.label ?? null;
      row.ttfb_ms = t.ttfb_ms;
      row.total_ms = t.total_ms;
      row.cut = t.cut;
    }
    return row;
  }

  /** A followed request's record, while it is kept. */
  get(seq: number): Followed | undefined {
    return this.followed.get(seq);
  }

  private keep(f: Followed): void {
    this.followed.set(f.row.seq, f);
    if (this.followed.size > FOLLOWED_MAX) this.followed.delete(this.followed.keys().next().value!);
    this.rows.set(f.row.seq, f.row);
    if (this.rows.size > BACKFILL) this.rows.delete(this.rows.keys().next().value!);
  }

  /** A key the mock does not know, told apart from others without being told: a salted hash. */
  private label(authorization: string): string {
    const token = bearerToken(authorization);
    if (!token) return 'malformed';
    return `unknown ${createHash('sha256').update(this.salt).update(token).digest('hex').slice(0, 6)}`;
  }

  private push(row: Row): void {
    this.queue.delete(row.seq);
    this.queue.set(row.seq, row);
    if (this.queue.size > BATCH_MAX) this.queue.delete(this.queue.keys().next().value!);
    this.schedule();
  }

  private changed(): void {
    this.controlChanged = true;
    this.schedule();
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    this.timer = undefined;
    let out = '';
    if (this.controlChanged) out += `event: control\ndata: ${JSON.stringify(this.mock.control.get())}\n\n`;
    if (this.queue.size) out += `event: rows\ndata: ${JSON.stringify([...this.queue.values()])}\n\n`;
    if (this.skipped) out += `event: skipped\ndata: ${this.skipped}\n\n`;
    if (this.mock.journal.dropped !== this.toldDropped) out += journalEvent((this.toldDropped = this.mock.journal.dropped));
    this.controlChanged = false;
    this.followedNow = 0;
    this.skipped = 0;
    this.queue.clear();
    if (out) this.broadcast(out);
  }

  private broadcast(text: string): void {
    for (const res of this.pages) res.write(text);
  }
}

/** What the journal let go (past its bounds in entries or bytes): the page shows the count. */
const journalEvent = (dropped: number) => `event: journal\ndata: ${JSON.stringify({ dropped })}\n\n`;

function rowOf(e: Omit<Stored, 'raw'>, reply: MockReply | undefined): Row {
  return {
    seq: e.seq,
    at: e.at,
    method: e.method,
    path: e.path,
    key_id: e.key_id,
    key: e.key_id,
    model: e.model ?? null,
    scenario: e.scenario,
    faults: e.faults,
    content: e.content,
    control: e.control ?? null,
    status: e.status,
    stream: e.stream,
    ttfb_ms: null,
    total_ms: null,
    cut: null,
    error: reply && !isRaw(reply) && !isStream(reply) && reply.status >= 400 ? errorOf(reply.body) : null,
    asked: e.asked,
    answered: null,
  };
}

function errorOf(body: string | Uint8Array): Row['error'] {
  try {
    const e = JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)).error;
    return { message: String(e.message), param: e.param ?? null, code: e.code ?? null };
  } catch {
    return null;
  }
}

/** The frames as they are; `sent` is told once, when the first has gone out (the adapter asks for
 * the next right after writing one). One generator and no array: this runs while no page listens. */
function* firstSent(frames: Iterable<Frame>, sent: () => void): Generator<Frame> {
  let first = true;
  for (const frame of frames) {
    yield frame;
    if (first) {
      first = false;
      sent();
    }
  }
  if (first) sent();
}

/** The frames as they are, each reported as the adapter asks for the next: it asks right after
 * writing one, so the time seen is the time that frame went out. */
function* tapped(frames: Iterable<Frame>, sent: (frame: Frame) => void): Generator<Frame> {
  let last: Frame | undefined;
  for (const frame of frames) {
    if (last) sent(last);
    last = undefined;
    // The adapter asks for nothing after a reset: it is reported as it is handed over.
    if ('reset' in frame) sent(frame);
    else last = frame;
    yield frame;
  }
  if (last) sent(last);
}
