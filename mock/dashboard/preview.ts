// What a row shows of a request and its answer, so a person finds theirs without opening it: the
// start of the last user message, and the start of the answer (its text, or the call it makes, its
// refusal, the error it is). Read from the bodies as a client would; whatever they hold is only text.
import { textOf } from '../core/bytes.js';
import type { Frame } from '../core/types.js';
import { contentText } from '../core/tokens.js';

/** Characters a row shows of each. */
export const PREVIEW_CHARS = 120;
/** A body past this is not parsed for its preview (a flood of long conversations while a page is open). */
const PARSED_MAX = 256 * 1024;

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Space folded, and cut to the row's width. */
export function cut(text: string): string | null {
  const t = text.replace(/\s+/g, ' ').trim();
  if (!t) return null;
  return t.length > PREVIEW_CHARS ? `${t.slice(0, PREVIEW_CHARS - 1)}…` : t;
}

/** The start of the last user message of a chat request's body (parsed), or null. */
export function askedOf(body: unknown): string | null {
  if (!isObject(body) || !Array.isArray(body.messages)) return null;
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i];
    if (isObject(m) && m.role === 'user') return cut(contentText(m.content));
  }
  return null;
}

/** The same, from the bytes as they came; null for a body too large to be worth parsing. */
export function askedOfRaw(raw: string | Uint8Array | undefined): string | null {
  if (raw === undefined || raw.length > PARSED_MAX) return null;
  try {
    return askedOf(JSON.parse(textOf(raw)));
  } catch {
    return null;
  }
}

/** A call as a row writes it: `get_weather({"city":"Paris"})`, its arguments as sent. */
const callText = (c: unknown) => (isObject(c) && isObject(c.function) ? `${String(c.function.name ?? '?')}(${typeof c.function.arguments === 'string' ? c.function.arguments : ''})` : '');

/** The start of a JSON answer: an error's message, the content, the refusal or the calls. */
export function answeredOf(body: string | Uint8Array): string | null {
  if (body.length > PARSED_MAX) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(textOf(body));
  } catch {
    return null;
  }
  if (!isObject(doc)) return null;
  if (isObject(doc.error)) return cut(String(doc.error.message ?? ''));
  const message = Array.isArray(doc.choices) && isObject(doc.choices[0]) ? doc.choices[0].message : undefined;
  if (!isObject(message)) return null;
  return cut(
    [
      typeof message.content === 'string' ? message.content : '',
      typeof message.refusal === 'string' ? `refusal: ${message.refusal}` : '',
      ...(Array.isArray(message.tool_calls) ? message.tool_calls.map(callText) : []),
    ]
      .filter(Boolean)
      .join(' · '),
  );
}

/** The start of a streamed answer, from its frames as they went: the deltas' text, a refusal, the
 * calls, an error event's message. Reads only as many events as the preview needs. */
export function streamedOf(frames: readonly Frame[]): string | null {
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let refusal = '';
  const calls: { name: string; args: string }[] = [];
  let error = '';
  const enough = () => text.length + refusal.length + calls.reduce((n, c) => n + c.name.length + c.args.length, 0) > PREVIEW_CHARS || !!error;
  for (const f of frames) {
    if (!('bytes' in f)) break;
    buffer += typeof f.bytes === 'string' ? f.bytes : decoder.decode(f.bytes, { stream: true });
    let at: number;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const data = /^data: ?(.*)$/m.exec(event)?.[1];
      if (!data || data === '[DONE]') continue;
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        continue;
      }
      if (!isObject(chunk)) continue;
      if (isObject(chunk.error)) error = String(chunk.error.message ?? 'error');
      const delta = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0].delta : undefined;
      if (isObject(delta)) {
        if (typeof delta.content === 'string') text += delta.content;
        if (typeof delta.refusal === 'string') refusal += delta.refusal;
        if (Array.isArray(delta.tool_calls))
          for (const d of delta.tool_calls) {
            if (!isObject(d)) continue;
            const i = typeof d.index === 'number' ? d.index : calls.length;
            calls[i] ??= { name: '', args: '' };
            if (isObject(d.function) && typeof d.function.name === 'string') calls[i].name += d.function.name;
            if (isObject(d.function) && typeof d.function.arguments === 'string') calls[i].args += d.function.arguments;
          }
      }
    }
    if (enough()) break;
  }
  const parts = [text, refusal && `refusal: ${refusal}`, ...calls.filter(Boolean).map((c) => `${c.name}(${c.args})`), error && `error: ${error}`];
  return cut(parts.filter(Boolean).join(' · '));
}
