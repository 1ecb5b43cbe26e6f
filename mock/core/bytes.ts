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

/** A text's size in UTF-8, counted without encoding it (a lone surrogate as the 3 bytes of the
 * U+FFFD an encoder writes in its place). */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A pair: 4 bytes for its 2 units.
      n += 2;
      i++;
    } else n += 2;
  }
  return n;
}
