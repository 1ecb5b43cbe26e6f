// Text and bytes without Node's Buffer: the core also runs in a browser. Where Node is there, its
// Buffer is used for the one conversion on the hot path (latin1), which TextDecoder does slower.
const UTF8 = new TextDecoder();
const ENCODER = new TextEncoder();
const LATIN1 = new TextDecoder('latin1');
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

export const textOf = (b: string | Uint8Array): string => (typeof b === 'string' ? b : UTF8.decode(b));

export const bytesOf = (b: string | Uint8Array): Uint8Array => (typeof b === 'string' ? ENCODER.encode(b) : b);

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One character per byte, every byte kept: a cache key exact even for bytes that are not UTF-8. */
export const latin1Of = (b: Uint8Array): string => (NodeBuffer ? NodeBuffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1') : LATIN1.decode(b));

export const fromBase64 = (s: string): string => {
  try {
    return UTF8.decode(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)));
  } catch {
    return '';
  }
};
