// The pieces of a secret a cut leaves beside its mark. A text cut short for readability
// (`${s.slice(0, 80)}…`) may end in the first characters of a key, and a window taken from the middle
// (`…${tail}`) may start with its last ones: pieces the runs (engine/secret-runs.ts) leave, being
// short or padding, that beside the mark still say where the key stood. Each form is read with its
// failure table (KMP) within its length of each cut: twice the text at most per form, however many
// cuts it holds.
import type { Span } from './secret-runs.js';

/** Per form: the form, reversed, and each one's failure table. */
export interface CutForm {
  forward: string;
  backward: string;
  forwardFail: Int32Array;
  backwardFail: Int32Array;
}

/** For each length k of `p`'s start, the longest proper start of it that is also its end. */
function failure(p: string): Int32Array {
  const fail = new Int32Array(p.length + 1);
  for (let i = 1, k = 0; i < p.length; i++) {
    while (k > 0 && p.charCodeAt(i) !== p.charCodeAt(k)) k = fail[k];
    if (p.charCodeAt(i) === p.charCodeAt(k)) k++;
    fail[i + 1] = k;
  }
  return fail;
}

export const formsForCuts = (forms: readonly string[]): CutForm[] =>
  forms.map((forward) => {
    const backward = [...forward].reverse().join('');
    return { forward, backward, forwardFail: failure(forward), backwardFail: failure(backward) };
  });

/** Where in `text` a piece of a form of `minPiece` characters or more stands beside a cut: before
 * each of `ends` (offsets, in order), the longest start of a form the text ends with there; from each
 * of `starts` (in order), the longest end of a form the text starts with there. */
export function piecesAtCuts(text: string, ends: readonly number[], starts: readonly number[], forms: readonly CutForm[], minPiece: number): Span[] {
  const spans: Span[] = [];
  for (const { forward, backward, forwardFail, backwardFail } of forms) {
    // Reading on from where the last cut's reading stopped, when the two overlap: the state carries.
    let read = 0;
    let k = 0;
    for (const at of ends) {
      const from = Math.max(read, at - forward.length);
      if (from > read) k = 0;
      for (let i = from; i < at; i++) k = step(forward, forwardFail, k, text.charCodeAt(i));
      read = Math.max(read, at);
      if (k >= minPiece) spans.push([at - k, at]);
    }
    // The same from the end, with the form reversed: the longest end of the form the text starts with.
    read = text.length;
    k = 0;
    for (let c = starts.length - 1; c >= 0; c--) {
      const after = starts[c];
      const from = Math.min(read, after + backward.length);
      if (from < read) k = 0;
      for (let i = from - 1; i >= after; i--) k = step(backward, backwardFail, k, text.charCodeAt(i));
      read = Math.min(read, after);
      if (k >= minPiece) spans.push([after, after + k]);
    }
  }
  return spans;
}

/** The longest start of `p` the text ends with, one character more read. */
function step(p: string, fail: Int32Array, k: number, c: number): number {
  // A whole match is a start too; the next character is read against its longest proper border.
  let j = k === p.length ? fail[k] : k;
  while (j > 0 && p.charCodeAt(j) !== c) j = fail[j];
  return p.charCodeAt(j) === c ? j + 1 : 0;
}
