// The transport-neutral request and reply: the adapters (node:http, interceptors) translate to
// and from these and nothing else, so both serve the same bytes.

export interface MockRequest {
  method: string;
  /** Path with query, as on the request line. */
  path: string;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  body?: string | Uint8Array;
  /** The body's size in bytes when the transport kept only its start (it was past the size limit). */
  size?: number;
}

/** One write of a stream after a pause, or (a fault) the connection reset at that point. Pauses
 * keep to a schedule from the stream's start (a late write shortens the next pause); `apart` keeps
 * this one's pause whatever the schedule: the piece must reach the client as a read of its own. */
export type Frame = { delayMs: number; bytes: string | Uint8Array; apart?: boolean } | { delayMs: number; reset: true };

export type MockReply =
  /** `delayMs`: the whole answer waits that long (a paced non-streamed reply, a slow server). */
  | { status: number; headers: Record<string, string>; body: string | Uint8Array; delayMs?: number }
  | { status: number; headers: Record<string, string>; stream: Iterable<Frame> }
  /** Bytes written to the socket as they are, with no HTTP framing (a fault of HTTP itself). */
  | { raw: Uint8Array };

export type StreamReply = Extract<MockReply, { stream: Iterable<Frame> }>;
export type BodyReply = Extract<MockReply, { body: string | Uint8Array }>;
export const isStream = (r: MockReply): r is StreamReply => 'stream' in r;
export const isRaw = (r: MockReply): r is Extract<MockReply, { raw: Uint8Array }> => 'raw' in r;
