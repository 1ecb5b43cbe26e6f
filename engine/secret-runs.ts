// Where a text holds a run of a secret's characters: any stretch of it that also stands in one of
// the secret's forms, wherever the server cut the secret (two SSE deltas, two words, a header and a
// body). Found in one pass over the text, whatever the text and however many forms: a suffix
// automaton of the forms (every substring of every form is a path from its root) read along the
// text gives, at each character, the longest stretch ending there that stands in some form.

/** A stretch of a text to redact: from its first character to past its last. */
export type Span = [from: number, to: number];

/** A run holding fewer different characters than this is left in the text: it tells a reader nothing
 * they could not guess. A key padded with zeros (the mock's `sk-mock-alpha-000…0001`) shares runs of
 * zeros, and of zeros and one digit, with every timestamp, count and id of a report (`1700000001`,
 * `-000000000000` in a UUID, a client's own wrong key `sk-conformance-wrong-key-000…`); redacting
 * them garbles evidence and hides nothing. A key a provider makes is random: eight of its characters
 * in a row hold two different ones or fewer about once in 10^8 runs, so nothing of it is left. */
export const MIN_KINDS = 3;

export class SecretRuns {
  /** Per state: the length of the longest substring it stands for, its suffix link, its transitions. */
  private readonly len: number[] = [0];
  private readonly link: number[] = [-1];
  private readonly next: Map<number, number>[] = [new Map()];

  /** `minRun`: the shortest run redacted. */
  constructor(
    forms: readonly string[],
    private readonly minRun: number,
  ) {
    for (const form of forms) {
      let last = 0;
      for (let i = 0; i < form.length; i++) last = this.extend(last, form.charCodeAt(i));
    }
  }

  /** Every stretch of `text` of minRun characters or more that stands in a form and holds MIN_KINDS
   * different characters, merged where they touch, in order. `lengths`, if given, is filled with the
   * length of the longest stretch ending at each offset that stands in a form, of any length. */
  spans(text: string, lengths?: Int32Array): Span[] {
    const { len, link, next, minRun } = this;
    const spans: Span[] = [];
    let state = 0;
    let matched = 0;
    // The two different characters seen last and where each was seen last, and where the third one
    // was: a stretch ending here holds three different characters when it reaches back to p3.
    let c1 = -1;
    let c2 = -1;
    let p1 = -1;
    let p2 = -1;
    let p3 = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === c1) p1 = i;
      else {
        // c2 stays third if c was second; else it becomes third, whatever was third before.
        if (c !== c2) p3 = p2;
        c2 = c1;
        p2 = p1;
        c1 = c;
        p1 = i;
      }
      // The longest stretch ending here that stands in a form: the one ending before, extended by c,
      // or the longest of its suffixes that extends. Each step back shortens it, and each character
      // lengthens it by one at most: steps back are at most as many as characters.
      let to = next[state].get(c);
      while (to === undefined && state !== 0) {
        state = link[state];
        matched = len[state];
        to = next[state].get(c);
      }
      if (to === undefined) {
        matched = 0;
        continue;
      }
      state = to;
      matched++;
      if (lengths) lengths[i] = matched;
      const from = i + 1 - matched;
      if (matched < minRun || from > p3) continue;
      // Stretches start no earlier than the one before: a stretch touching the last one joins it.
      const last = spans.at(-1);
      if (last && last[1] >= from) last[1] = i + 1;
      else spans.push([from, i + 1]);
    }
    return spans;
  }

  /** One character more of a form being added (generalized suffix automaton: a form may start with
   * what another holds). Returns the state of the form so far. */
  private extend(last: number, c: number): number {
    const { len, link, next } = this;
    const existing = next[last].get(c);
    if (existing !== undefined) return len[last] + 1 === len[existing] ? existing : this.split(last, c, existing);
    const state = this.state(len[last] + 1, -1, new Map());
    let p = last;
    while (p !== -1 && !next[p].has(c)) {
      next[p].set(c, state);
      p = link[p];
    }
    if (p === -1) link[state] = 0;
    else {
      const q = next[p].get(c)!;
      link[state] = len[p] + 1 === len[q] ? q : this.split(p, c, q);
    }
    return state;
  }

  /** A copy of `q` for the strings of length len[p] + 1 and shorter that reach it through c. */
  private split(p: number, c: number, q: number): number {
    const { len, link, next } = this;
    const clone = this.state(len[p] + 1, link[q], new Map(next[q]));
    for (let s = p; s !== -1 && next[s].get(c) === q; s = link[s]) next[s].set(c, clone);
    link[q] = clone;
    return clone;
  }

  private state(length: number, suffix: number, transitions: Map<number, number>): number {
    this.len.push(length);
    this.link.push(suffix);
    this.next.push(transitions);
    return this.len.length - 1;
  }
}
