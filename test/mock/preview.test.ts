// What a dashboard row shows of an answer is what a client reads: a stream's text joined from its
// deltas (escapes undone, characters split across writes put back together), the calls it makes,
// an error event; a JSON answer's text or its error's message; cut to the row's length.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { askedOf, PREVIEW_CHARS } from '../../mock/core/asked.js';
import { answeredOf, streamedOf } from '../../mock/dashboard/preview.js';
import { bodyText, chat, contentDeltas, frames, scenarioMock, user } from './helpers.js';

const cutTo = (text: string) => (text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text);

describe('the preview of an answer', () => {
  it('of a stream is its text as a client joins it, whatever the writes and escapes', () => {
    const quoted = 'She said "hi" \\ then left: naïve café 😀 done.';
    const mock = scenarioMock([{ name: 'q', match: {}, reply: { text: quoted } }]);
    const plain = frames(chat(mock, { ...user('go'), stream: true }));
    expect(streamedOf(plain)).toBe(quoted);
    // Each event cut across writes, inside multi-byte characters.
    const split = frames(chat(mock, { ...user('go'), stream: true }, { 'x-mock-content': 'split=bytes' }));
    expect(split.some((f) => 'bytes' in f && typeof f.bytes !== 'string')).toBe(true);
    expect(streamedOf(split)).toBe(quoted);
  });

  it('of a long stream is its start, cut to the row', () => {
    const fs = frames(chat(createMock(), { ...user('Write a long essay.'), stream: true }));
    const text = contentDeltas(fs).join('').replace(/\s+/g, ' ').trim();
    expect(text.length).toBeGreaterThan(PREVIEW_CHARS);
    expect(streamedOf(fs)).toBe(cutTo(text));
  });

  it('names the calls, streamed or not, and an error', () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }];
    const body = { ...user('look it up'), tools, tool_choice: 'required' };
    const json = answeredOf(bodyText(chat(createMock(), body)));
    expect(json).toMatch(/^lookup\(\{"q":"[^"]*"\}\)$/);
    expect(streamedOf(frames(chat(createMock(), { ...body, stream: true })))).toBe(json);
    expect(streamedOf(frames(chat(createMock(), { ...user('go'), stream: true }, { 'x-mock-fault': 'stream-error; chunks=0' })))).toMatch(/error: The model stopped with an internal error\.$/);
    expect(answeredOf(bodyText(chat(createMock(), { ...user('go'), model: 'nope' })))).toBe("The model 'nope' does not exist or you do not have access to it.");
  });

  it('of a request is its last user message, space folded; none for a body that is not a chat', () => {
    expect(
      askedOf({
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'x' },
          { role: 'user', content: [{ type: 'text', text: ' second\n\tturn ' }] },
        ],
      }),
    ).toBe('second turn');
    expect(askedOf({ messages: [{ role: 'system', content: 'only a system prompt' }] })).toBeNull();
    expect(askedOf('not json')).toBeNull();
  });
});
