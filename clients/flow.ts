// A client flow: a small program in a real SDK that does what a user's code does (stream and join,
// call a tool and answer it, parse structured output, handle an error), with the checks it rests on.
// Like a check it is data plus a small function, with a stable id (`<client>.<flow>`), a title, a level
// (the highest of its checks') and evidence (the exchanges its SDK sent, recorded by recorder.ts).
import type { Verdict } from '../engine/check.js';

/** The flows, in the order of the matrix, each with what it proves. Every client runs the ones it
 * offers, as its own documentation writes them. */
export const FLOWS = [
  { name: 'models', title: 'List the models' },
  { name: 'completion', title: 'A completion: text, usage, finish reason as the client maps it' },
  { name: 'stream', title: "A stream through the client's own helper, joined, with usage and finish reason" },
  { name: 'tools', title: 'A tool call round trip: the call, its result sent back, the answer' },
  { name: 'structured', title: 'Structured output parsed against a schema' },
  { name: 'stop', title: 'Stop sequences end the text before them' },
  { name: 'max-tokens', title: 'max_tokens reached, as the client reports it' },
  { name: 'auth-error', title: "A wrong key, as the client's authentication error" },
  { name: 'bad-request', title: "An invalid body (five stop sequences), as the client's bad-request error" },
  { name: 'abort', title: 'A stream aborted mid-way ends, without a hang' },
  // The client sleeps in it: its backoff before the retry (LangChain's own, 1 to 2 s, whatever the header says).
  { name: 'retry', title: 'A 429 with Retry-After, retried as the client does', sleeps: true },
] as const;

/** The flows whose client sleeps: started first, so that the sleep overlaps the other flows' work
 * instead of ending the run after it. */
export const SLEEPING: ReadonlySet<string> = new Set(FLOWS.filter((f) => 'sleeps' in f && f.sleeps).map((f) => f.name));

export type FlowName = (typeof FLOWS)[number]['name'];

/** What a flow is given: the target as an OpenAI-compatible client takes it, and a fetch that records. */
export interface FlowContext {
  /** `{base_url}/v1`: the base URL every OpenAI-compatible client is given. */
  baseURL: string;
  apiKey: string;
  /** The model under test (a flow run once gets the first). */
  model: string;
  /** The extra headers of the run (--header), as the client's default headers. */
  headers: Record<string, string>;
  /** Every request of the flow goes through it: recorded as the flow's evidence, counted in the run's cost. */
  fetch: typeof fetch;
  /** Each request's deadline, as the client's own timeout option. */
  timeoutMs: number;
  /** The next chat request is answered by the kit with a 429 and these Retry-After headers, as a busy
   * server answers; the client's retry then reaches the target. */
  busyOnce(retryAfterMs: number): void;
  /** The chat requests the flow sent so far: their status (429 for the kit's), and when each was sent. */
  chatRequests(): { status?: number; sentAt: number }[];
  /** An exchange the flow's client made without `fetch` (a browser's), kept as evidence and counted. */
  record(exchange: { request: import('../engine/http.js').RequestSpec; status?: number; headers?: Record<string, string>; error?: string; origin?: string }): void;
  /** The host name the browser client's page is served as (its origin, for CORS); 127.0.0.1 by default. */
  pageHost?: string;
}

export interface Flow<Sdk> {
  name: FlowName;
  /** What the user's code does in this client, one line (the report and docs/clients.md show it). */
  does: string;
  /** The checks it rests on: the rules whose breach breaks it. Measured by the fault sweep
   * (test/clients/sweep.test.ts), which fails where a fault breaks the flow and none of these, or
   * breaks one of these and not the flow. A flow that sends max_tokens rests on chat.max-tokens: a
   * model that refuses the field breaks it (fault reasoning-max-tokens-refused). */
  rests: readonly string[];
  /** Runs once, not per model (the model list). */
  once?: boolean;
  run(sdk: Sdk, ctx: FlowContext): Promise<Verdict>;
}

export interface Client<Sdk> {
  /** Stable, kebab-case: `openai`, `ai-sdk`, `langchain`. */
  name: string;
  title: string;
  /** The packages it needs, as `npm install` takes them. */
  packages: readonly string[];
  /** Imports them: only when the client is asked for, so a missing one costs nothing. */
  load(): Promise<Sdk>;
  /** What it needs besides its packages (a browser), looked for without loading anything: why it
   * cannot run here, with how to get it, or nothing. A run asked for this client says so before
   * its first request. */
  lacks?(): string | undefined;
  flows: readonly Flow<Sdk>[];
  /** The flows the client does not offer, with why. */
  absent: Partial<Record<FlowName, string>>;
  /** What the SDK opened for a run's flows (a browser), closed when they are done. */
  close?(sdk: Sdk): Promise<void>;
}

/** A client whose SDK type is its own business: what the registry holds. */
export type AnyClient = Client<any>;

/** Collects what is wrong with what a client gave, for one verdict: `want(ok, 'what is wrong')`. */
export function expectations(): { want(ok: boolean, wrong: string): void; wrong: string[] } {
  const wrong: string[] = [];
  return { wrong, want: (ok, w) => void (ok || wrong.push(w)) };
}

/** A value as a message shows it: short JSON. */
export function shown(v: unknown, max = 120): string {
  let s: string;
  try {
    s = v === undefined ? 'undefined' : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** An error a client threw, as a message names it: its class (or name) and message. */
export function thrownName(e: unknown): string {
  if (!(e instanceof Error)) return `a non-error value ${shown(e)}`;
  const cls = e.constructor?.name && e.constructor.name !== 'Error' ? e.constructor.name : e.name;
  return `${cls}: ${e.message.split('\n')[0]}`;
}

/** A whole number of tokens, as a client reports one. */
export const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
