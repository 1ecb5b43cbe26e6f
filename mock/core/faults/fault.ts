// A fault: one named, deliberate deviation of the mock from the document or the convention.
// Each declares exactly which checks it makes fail, so a test can prove every check can fail.
import type { MockConfig } from '../../config/types.js';
import type { MockReply, MockRequest } from '../types.js';

export interface FaultContext {
  config: MockConfig;
  /** Parameters given with the fault (`x-mock-fault: drop-after; chunks=3`), as strings. */
  params: Record<string, string>;
  /** What a fault keeps across requests, this mock's own (the load faults count the answers in
   * flight here); absent where a fault is applied outside a mock. */
  state?: Map<string, unknown>;
}

export interface Fault {
  /** Stable, kebab-case: `conformance mock --fault NAME`. */
  name: string;
  description: string;
  /** The check ids this fault makes fail, exactly. Empty for a legal variation, which every check
   * must pass. */
  fails: readonly string[];
  /** The checks it makes flaky, exactly: a deviation that shows on one answer and not when the same
   * request is sent again. The run stays green; --strict fails it. */
  flakes?: readonly string[];
  /** The parts of an answer it breaks, as `way:part` (`json:usage-details`, `stream:complete`): the
   * checks that own those parts are the ones it fails (the suites' answer reader names the owners). */
  breaks?: readonly string[];
  /** The client flows (clients/, `<client>.<flow>`) it breaks though no check fails: a rule the kit
   * lacks, which a report says plainly. The client sweep (test/clients/sweep.test.ts) holds it to them. */
  breaksFlowsOnly?: readonly string[];
  /** The path the deviation is on (`stream`, `mock-reason-1`, `case`): every failing path of every
   * check it fails names it, so a check is shown to catch a fault that hides on one path. */
  on?: string;
  /** Breaks HTTP itself (random bytes, resets, endless bodies), or is not the API at all (a web
   * server's pages): proves the runner's robustness, and no check by its failing. */
  hostile?: boolean;
  /** A failure a frontend must handle (429, 503, a dropped stream), served per request, per
   * scenario or at a rate; not a deviation from the document, so it proves no check. */
  frontend?: boolean;
  /** Shows only with requests in flight together: its checks fail under `conformance load`, at the
   * step where enough are in flight, and a one-at-a-time run sees a correct mock. */
  load?: boolean;
  /** The parameters it takes (`drop-after; chunks=3`), each a number with its default; any other
   * parameter, or one that is not a number, is refused. Every fault also takes `times`. */
  params?: Readonly<Record<string, { default: number; describe: string }>>;
  /** Configured for the whole mock (not asked per request): no CORS, a preflight answered 404 and
   * no Access-Control-Allow-Origin on any answer, as an API meant for servers only. */
  withoutCors?: true;
  /** Rewrites the request before the core sees it. */
  request?(req: MockRequest, ctx: FaultContext): MockRequest;
  /** Answers before the mock reads the body at all, its own limits on size and depth included: a
   * server whose parser breaks on what the mock would refuse. It may scan the body once, linearly,
   * and walk nothing. */
  raw?(req: MockRequest, ctx: FaultContext): MockReply | undefined;
  /** Rewrites the core's reply. */
  reply?(reply: MockReply, req: MockRequest, ctx: FaultContext): MockReply;
}
