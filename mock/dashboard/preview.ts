// What a row shows of an answer, so a person finds theirs without opening it: its start (its text,
// or the call it makes, its refusal, the error it is), beside what was asked (core/asked.ts, kept
// with the journal entry). Read from the bodies as a client would; whatever they hold is only text.
import { textOf } from '../core/bytes.js';
import { cut, PREVIEW_CHARS } from '../core/asked.js';
import type { Frame } from '../core/types.js';

/** An answer past this is not parsed for its preview (a flood of long answers while a page is open). */
const PARSED_MAX = 256 * 1024;

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

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

/** Where the text of a delta that carries text and nothing else (as most events of a stream do)
 * begins and ends, found without parsing the chunk (a page open pays this for every stream); -1
 * for any other event. Text holding a backslash (an escape) is left to the parser. */
function plainText(data: string): [number, number] | -1 {
  const delta = data.indexOf('"delta":{');
  if (delta < 0) return -1;
  let start = delta + 9;
  if (data.startsWith('"role":"assistant",', start)) start += 19;
  if (!data.startsWith('"content":"', start)) return -1;
  start += 11;
  const end = data.indexOf('"}', start);
  if (end < 0) return -1;
  const backslash = data.indexOf('\\', start);
  return backslash >= 0 && backslash < end ? -1 : [start, end];
}

/** The start of a streamed answer, from its frames as they went: the deltas' text, a refusal, the
 * calls, an error event's message. Reads only as many events as the preview needs. */
export function streamedOf(frames: readonly Frame[]): string | null {
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  const out = { text: '', refusal: '', calls: [] as { name: string; args: string }[], error: '' };
  let buffer = '';
  for (const f of frames) {
    if (!('bytes' in f)) break;
    buffer += typeof f.bytes === 'string' ? f.bytes : (decoder ??= new TextDecoder()).decode(f.bytes, { stream: true });
    let from = 0;
    for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n', from)) {
      readEvent(buffer.slice(from, at), out);
      from = at + 2;
    }
    buffer = buffer.slice(from);
    if (out.error || out.text.length + out.refusal.length + out.calls.reduce((n, c) => n + c.name.length + c.args.length, 0) > PREVIEW_CHARS) break;
  }
  const parts = [out.text, out.refusal && `refusal: ${out.refusal}`, ...out.calls.filter(Boolean).map((c) => `${c.name}(${c.args})`), out.error && `error: ${out.error}`];
  return cut(parts.filter(Boolean).join(' · '));
}

function readEvent(event: string, out: { text: string; refusal: string; calls: { name: string; args: string }[]; error: string }): void {
  const data = event.startsWith('data: ') ? event.slice(6) : /^data: ?(.*)$/m.exec(event)?.[1];
  if (!data || data === '[DONE]') return;
  const plain = plainText(data);
  if (plain !== -1) {
    out.text += data.slice(plain[0], plain[1]);
    return;
  }
  try {
    const chunk: unknown = JSON.parse(data);
    if (!isObject(chunk)) return;
    if (isObject(chunk.error)) out.error = String(chunk.error.message ?? 'error');
    const delta = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0].delta : undefined;
    if (!isObject(delta)) return;
    if (typeof delta.content === 'string') out.text += delta.content;
    if (typeof delta.refusal === 'string') out.refusal += delta.refusal;
    if (Array.isArray(delta.tool_calls))
      for (const d of delta.tool_calls) {
        if (!isObject(d)) continue;
        const call = (out.calls[typeof d.index === 'number' ? d.index : out.calls.length] ??= { name: '', args: '' });
        if (isObject(d.function) && typeof d.function.name === 'string') call.name += d.function.name;
        if (isObject(d.function) && typeof d.function.arguments === 'string') call.args += d.function.arguments;
      }
  } catch {
    // Not JSON: nothing a client could read either.
  }
}
