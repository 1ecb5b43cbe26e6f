// The joiner of a stream's tool-call deltas: the legal forms the official clients join as sent pass
// (a whole call in one delta, several calls in one chunk, null or "" repeated, type repeated), and
// each convention they rely on is named where it breaks. The faults of mock/core/faults/tools.ts
// show the same on whole streams; here, the forms no fault sends.
import { describe, expect, it } from 'vitest';
import { toolCallJoiner } from '../../suites/tool-deltas.js';

/** Joins chunks' tool_calls lists, the first at event 1. */
const join = (...chunks: unknown[][]) => {
  const j = toolCallJoiner();
  for (const [i, deltas] of chunks.entries()) j.add(i + 1, deltas);
  return j.done();
};
const head = (index: number, id: string, name: string, args = '') => ({ index, id, type: 'function', function: { name, arguments: args } });
const frag = (index: number, args: string, extra: object = {}) => ({ index, function: { arguments: args }, ...extra });

describe('joining tool-call deltas', () => {
  it('joins the legal forms with no problem', () => {
    expect(join([head(0, 'a', 'f')], [frag(0, '{"x":')], [frag(0, '1}')], [head(1, 'b', 'g', '{}')])).toEqual({
      calls: [
        { index: 0, id: 'a', name: 'f', arguments: '{"x":1}' },
        { index: 1, id: 'b', name: 'g', arguments: '{}' },
      ],
      problems: [],
    });
    // Two whole calls in one chunk; later deltas with null, "" and a repeated type.
    expect(join([head(0, 'a', 'f', '{}'), head(1, 'b', 'g', '{}')]).problems).toEqual([]);
    expect(join([head(0, 'a', 'f')], [frag(0, '{}', { id: null, type: 'function', function: { name: '', arguments: '{}' } })], [frag(0, '', { id: '' })]).problems).toEqual([]);
  });

  it('names the first delta that lacks id, type or function.name, and keeps what a later delta brings', () => {
    const r = join([{ index: 0, function: { arguments: '' } }], [frag(0, '{}', { id: 'a', function: { name: 'f', arguments: '{}' } })]);
    expect(r.calls).toEqual([{ index: 0, id: 'a', name: 'f', arguments: '{}' }]);
    expect(r.problems).toEqual([expect.stringMatching(/^event 1: the first delta of tool call 0 lacks id \(.*\), type "function" \(.*\), function\.name \(/)]);
  });

  it('tells a repeated id from another one, keeping the first', () => {
    const same = join([head(0, 'a', 'f')], [frag(0, '{}', { id: 'a' })]);
    expect(same.problems).toEqual(['event 2: a later delta of tool call 0 sends its id "a" again (openai-python joins it as "aa")']);
    const other = join([head(0, 'a', 'f')], [frag(0, '{}', { id: 'b' })], [frag(0, '', { id: 'c' })]);
    expect(other.calls[0].id).toBe('a');
    expect(other.problems).toEqual(['event 2: a later delta of tool call 0 sends another id "b" (openai-node takes it instead of "a"; openai-python joins "ab")']);
  });

  it('names an index that skips one, and a call that resumes after another began', () => {
    expect(join([head(0, 'a', 'f', '{}')], [head(2, 'b', 'g', '{}')]).problems).toEqual([expect.stringMatching(/^event 2: tool call 1 is due, but the call that starts has index 2/)]);
    expect(join([head(0, 'a', 'f', '{')], [head(1, 'b', 'g', '{}')], [frag(0, '}')]).problems).toEqual([expect.stringMatching(/^event 3: a delta of tool call 0 comes after tool call 1's began/)]);
  });

  it('takes a delta without an index for the call at its place (the chunk schema reports it)', () => {
    expect(join([{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }])).toEqual({ calls: [{ index: 0, id: 'a', name: 'f', arguments: '{}' }], problems: [] });
  });
});
