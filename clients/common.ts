// What the flows of every client share beyond their asks: the wrong key, the kit's 429, how long an
// aborted stream may take to end, and the verdicts of the error and retry flows.
import { fail, pass, type Verdict } from '../engine/check.js';
import type { FlowContext } from './flow.js';

/** A key no server issued (no real key is altered: the flow's evidence may show it). */
export const WRONG_KEY = 'sk-conformance-wrong-key-000000000000000000';
/** What the kit's 429 asks a client to wait: short, so the flow costs little time. */
export const RETRY_AFTER_MS = 250;
/** An aborted stream ends within this of the abort, or the client hangs on it. */
export const ABORT_GRACE_MS = 5_000;

/** The wait of an abort flow: until the flow aborts, the request's own timeout and the grace (a slow
 * engine's first content may come late: that is no hang); from the abort, the grace alone. */
export interface AbortGrace {
  /** The flow aborts now. */
  started(): void;
  hang: Promise<'hang'>;
  clear(): void;
}

export function abortGrace(ctx: Pick<FlowContext, 'timeoutMs'>): AbortGrace {
  let timer: NodeJS.Timeout | undefined;
  let resolve!: (v: 'hang') => void;
  const hang = new Promise<'hang'>((r) => (resolve = r));
  const wait = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => resolve('hang'), ms);
  };
  wait(ctx.timeoutMs + ABORT_GRACE_MS);
  return { started: () => wait(ABORT_GRACE_MS), hang, clear: () => clearTimeout(timer) };
}

/** What `fn` threw, undefined when it did not, or `hang` when it had not settled within `grace`. */
export async function thrown(fn: () => Promise<unknown>, grace?: AbortGrace): Promise<unknown> {
  try {
    return await Promise.race([fn().then(() => undefined), ...(grace ? [grace.hang] : [])]);
  } catch (e) {
    return e;
  } finally {
    grace?.clear();
  }
}

/** The retry flow's verdict from what the recorder saw: the kit's 429, then the client's retry served. */
export function retried(ctx: FlowContext, served: boolean, what: string): Verdict {
  const sent = ctx.chatRequests();
  const [busy, again] = sent;
  if (busy?.status !== 429) return fail(`the kit's 429 was not the first chat request (${sent.map((s) => s.status).join(', ')})`);
  if (!again) return fail('the client did not send the request again after the 429');
  if (again.status === undefined || again.status >= 300) return fail(`the retry was answered ${again.status ?? 'with no status'}`);
  if (!served) return fail(`${what} without an answer after the retry`);
  return pass([`retried after ${Math.round(again.sentAt - busy.sentAt)} ms (the 429 asked ${RETRY_AFTER_MS} ms), ${sent.length} chat requests in all`]);
}
