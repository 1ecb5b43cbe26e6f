// The transport-neutral request and reply: the adapters (node:http, interceptors) translate to
// and from these and nothing else, so both serve the same bytes.

export interface MockRequest {
  method: string;
  /** Path with query, as on the request line. */
  path: string;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  body?: string | Uint8Array;
}

/** One write of a stream, after a pause. */
export interface Frame {
  delayMs: number;
  bytes: string | Uint8Array;
}

export type MockReply =
  | { status: number; headers: Record<string, string>; body: string | Uint8Array }
  | { status: number; headers: Record<string, string>; stream: Iterable<Frame> };

export const isStream = (r: MockReply): r is Extract<MockReply, { stream: Iterable<Frame> }> => 'stream' in r;
