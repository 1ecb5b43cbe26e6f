// A load's deadlines: one timer for every request of a client, where a timer and an AbortSignal per
// request cost as much as undici itself. Each request is given a handle that undici takes as its
// abort signal (an object with `on`, `once` and `removeListener`), so the one timer ends it wherever
// it waits, from the moment it is sent: for headers (however many 1xx answers come first, each of
// which restarts undici's own headers timeout) as in its body. The caller's stop signal (the run's
// deadline, Ctrl-C) is listened to once per signal, not once per request.

/** Why a request was ended before its answer was: its own deadline, or its caller's stop. */
export type Ended = 'deadline' | 'stopped';

/** One request in flight: what undici is given as its signal, and what the sweep ends. */
export class SweptRequest {
  aborted = false;
  reason: Error | undefined;
  ended: Ended | undefined;
  private listener: (() => void) | undefined;

  constructor(
    /** performance.now() past which it is ended. */
    readonly at: number,
    readonly stop: AbortSignal | undefined,
  ) {}

  // undici listens once, and lets go when its body closes: one listener is all there is to keep.
  on(_event: 'abort', listener: () => void): this {
    this.listener = listener;
    return this;
  }

  once(_event: 'abort', listener: () => void): this {
    this.listener = listener;
    return this;
  }

  removeListener(_event: 'abort', _listener: () => void): this {
    this.listener = undefined;
    return this;
  }

  end(why: Ended, reason: Error): void {
    if (this.ended) return;
    this.ended = why;
    this.aborted = true;
    this.reason = reason;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }
}

export class SweptDeadlines {
  /** In the order they were sent, which is the order of their deadlines (one length for all). */
  private readonly inFlight = new Set<SweptRequest>();
  private readonly heeded = new Map<AbortSignal, () => void>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly deadlineMs: number) {}

  /** The handle of a request sent now: ended at its deadline, or when `stop` aborts. */
  start(stop?: AbortSignal): SweptRequest {
    const r = new SweptRequest(performance.now() + this.deadlineMs, stop);
    if (stop) {
      if (stop.aborted) r.end('stopped', stopError(stop));
      else this.heed(stop);
    }
    this.inFlight.add(r);
    // A tick of a quarter of the deadline (10 to 100 ms): a request ends at most that late.
    this.timer ??= setInterval(() => this.sweep(), Math.max(10, Math.min(100, this.deadlineMs / 4))).unref();
    return r;
  }

  /** The request ended, one way or another. */
  done(r: SweptRequest): void {
    this.inFlight.delete(r);
  }

  private sweep(): void {
    const now = performance.now();
    for (const r of this.inFlight) {
      // The first one not due: neither is any sent after it.
      if (r.at > now) break;
      this.inFlight.delete(r);
      r.end('deadline', new Error('deadline'));
    }
    if (!this.inFlight.size) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private heed(stop: AbortSignal): void {
    if (this.heeded.has(stop)) return;
    const onStop = () => {
      this.heeded.delete(stop);
      const reason = stopError(stop);
      for (const r of this.inFlight) if (r.stop === stop) r.end('stopped', reason);
    };
    this.heeded.set(stop, onStop);
    stop.addEventListener('abort', onStop, { once: true });
  }

  /** Lets go of the timer and of the stop signals (which may outlive the client). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const [stop, onStop] of this.heeded) stop.removeEventListener('abort', onStop);
    this.heeded.clear();
  }
}

/** What a stopped request is aborted with: the stop's reason, as an Error. */
export function stopError(stop: AbortSignal): Error {
  return new Error(`the run was stopped (${typeof stop.reason === 'string' ? stop.reason : ((stop.reason as Error)?.message ?? 'aborted')})`);
}
