// Which faults leave the client flows' exchanges exactly as the correct mock serves them: the
// client sweep derives their verdict (no flow breaks) instead of running every flow again.
//
// The argument: the mock's core answers the same request the same way, a fault acts only through
// its three functions (raw, request, reply), and a flow sends the same requests as long as it gets
// the same answers. So a fault whose functions, applied to every request the flows sent to the
// correct mock and to every reply they got, change none of them cannot break a flow: the flows
// would send the same requests and get the same bytes, with the same pauses. A fault that keeps
// state between requests, or makes a check flaky, or acts in none of the three functions, is not
// reasoned about: it is run. The replies kept are as the mock sent them, after its byte split and its
// CORS headers, which a fault's reply function never sees; neither applies to these flows (the
// default configuration splits no stream into bytes, and a client in Node sends no Origin).
import { isDeepStrictEqual } from 'node:util';
import { createMock, type Mock } from '../../mock/core/handle.js';
import type { Fault } from '../../mock/core/faults/index.js';
import { isRaw, isStream, type Frame, type MockReply, type MockRequest } from '../../mock/core/types.js';

export interface Exchanged {
  req: MockRequest;
  reply: MockReply;
  /** What the client met of the reply (met), made once for every fault to be compared with. */
  met: unknown;
}

/** A stream's frames kept, so the reply can be read again (the core's stream is read once). */
const kept = (reply: MockReply): MockReply => (isStream(reply) ? { ...reply, stream: [...reply.stream] } : reply);
/** A fresh copy for a fault to rewrite: nothing it does reaches the record. */
const copied = (reply: MockReply): MockReply =>
  isStream(reply) ? { ...reply, headers: { ...reply.headers }, stream: [...(reply.stream as Frame[])] } : isRaw(reply) ? reply : { ...reply, headers: { ...reply.headers } };

const bytes = (b: string | Uint8Array) => Buffer.from(b).toString('latin1');
/** What a client meets of a reply: its status, headers, bytes and pauses. */
function met(reply: MockReply): unknown {
  if (isRaw(reply)) return { raw: bytes(reply.raw) };
  if (isStream(reply)) return { status: reply.status, headers: reply.headers, frames: [...reply.stream].map((f) => ('reset' in f ? f : { ...f, bytes: bytes(f.bytes) })) };
  return { status: reply.status, headers: reply.headers, body: bytes(reply.body), delayMs: reply.delayMs ?? 0 };
}

/** The correct mock, every request it handles and its reply kept. */
export function recordingMock(): { mock: Mock; exchanged: Exchanged[] } {
  const base = createMock();
  const exchanged: Exchanged[] = [];
  const mock: Mock = {
    config: base.config,
    journal: base.journal,
    control: base.control,
    handle: (req) => {
      const reply = kept(base.handle(req));
      exchanged.push({ req: { ...req, headers: { ...req.headers } }, reply, met: met(reply) });
      return copied(reply);
    },
  };
  return { mock, exchanged };
}

/** Whether the fault leaves every one of these exchanges as it was (see above). */
export function untouched(fault: Fault, config: Mock['config'], exchanged: readonly Exchanged[]): boolean {
  if (fault.flakes?.length || fault.breaksFlowsOnly?.length || (!fault.raw && !fault.request && !fault.reply)) return false;
  // A state of its own that a fault writes to means its answers depend on what came before.
  const state = new Map<string, unknown>();
  const ctx = { config, params: {}, state };
  for (const { req, reply, met: was } of exchanged) {
    if (fault.raw?.({ ...req }, ctx) !== undefined) return false;
    if (fault.request && !isDeepStrictEqual(fault.request({ ...req, headers: { ...req.headers } }, ctx), req)) return false;
    if (fault.reply && !isDeepStrictEqual(met(fault.reply(copied(reply), req, ctx)), was)) return false;
  }
  return state.size === 0;
}
