// Where a text holds a run of a secret's characters: any stretch of it that also stands in one of
// the secret's forms, wherever the server cut the secret (two SSE deltas, two words, a header and a
// body). Found in one pass over the text at most, whatever the text and however many forms: a
// suffix automaton of the forms (every substring of every form is a path from its root) read along
// the text gives, at each character, the longest stretch ending there that stands in some form.

/** A stretch of a text to redact: from its first character to past its last. */
export type Span = [from: number, to: number];

/** A run holding fewer different characters than this is left in the text: it tells a reader nothing
 * they could not guess. A key padded with zeros (the mock's `sk-mock-alpha-000…0001`) shares runs of
 * zeros, and of zeros and one digit, with every timestamp, count and id of a report (`1700000001`,
 * `-000000000000` in a UUID, a client's own wrong key `sk-conformance-wrong-key-000…`); redacting
 * them garbles evidence and hides nothing. A key a provider makes is random: eight of its characters
 * in a row hold two different ones or fewer less than once in 10^8 runs: nothing of it is left. */
export const MIN_KINDS = 3;

export class SecretRuns {
  /** Per state: the length of the longest substring it stands for, and its suffix link. */
  private readonly len: Int32Array;
  private readonly link: Int32Array;
  /** Each state's transitions, a row of `letters`: the state reached, or -1. Tables, not a map a
   * state: a map lookup for each character read made redacting a default run's report three times
   * as slow, and a redactor is built again for each secret a run adds (tables, in a sixth of the time). */
  private next: Int32Array;
  /** The letter of each character the forms hold (-1: none), numbered as first seen: a table for
   * ASCII, a map past it. */
  private readonly ascii = new Int32Array(128).fill(-1);
  private readonly wide = new Map<number, number>();
  private letters = 0;
  private states = 1;

  /** `minRun`: the shortest run redacted. */
  constructor(
    forms: readonly string[],
    private readonly minRun: number,
  ) {
    for (const form of forms) for (let i = 0; i < form.length; i++) this.letterOf(form.charCodeAt(i));
    // A suffix automaton has fewer than twice as many states as the characters it is built of.
    const most = 2 * forms.reduce((n, f) => n + f.length, 0) + 1;
    this.len = new Int32Array(most);
    this.link = new Int32Array(most).fill(-1);
    this.next = new Int32Array(most * this.letters).fill(-1);
    for (const form of forms) {
      let last = 0;
      for (let i = 0; i < form.length; i++) last = this.extend(last, this.letterOf(form.charCodeAt(i)));
    }
    this.next = this.next.slice(0, this.states * this.letters);
  }

  /** Every stretch of `text` of minRun characters or more that stands in a form and holds MIN_KINDS
   * different characters, merged where they touch, in order. `lengths`, if given, is filled with the
   * length of the longest stretch ending at each offset that stands in a form, of any length. */
  spans(text: string, lengths?: Int32Array): Span[] {
    const spans: Span[] = [];
    // A stretch is made of letters (characters some form holds), so a run of minRun lies in a block
    // of as many letters: every minRun-th character is looked at, and only a block of letters around
    // one is read. Most characters of a report are not read at all (a default run's report was read
    // a third slower for reading each). For `lengths`, every block is read.
    const step = lengths ? 1 : this.minRun;
    for (let at = step - 1; at < text.length; ) {
      if (this.letterAt(text, at) < 0) {
        at += step;
        continue;
      }
      // The block starts at most step - 1 back: the character looked at before was no letter, or
      // the end of the block read before.
      let start = at;
      while (start > 0 && this.letterAt(text, start - 1) >= 0) start--;
      at = this.block(text, start, spans, lengths) + step;
    }
    return spans;
  }

  /** Reads the block of letters from `start` (after no letter), adding its stretches to `spans`;
   * returns where it ends. */
  private block(text: string, start: number, spans: Span[], lengths?: Int32Array): number {
    const { len, link, next, letters, minRun } = this;
    let state = 0;
    let matched = 0;
    // The two different characters seen last and where each was seen last, and where the third one
    // was: a stretch ending here holds three different characters when it reaches back to p3.
    let c1 = -1;
    let c2 = -1;
    let p1 = -1;
    let p2 = -1;
    let p3 = -1;
    let i = start;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const letter = c < 128 ? this.ascii[c] : (this.wide.get(c) ?? -1);
      if (letter < 0) break;
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
      let to = next[state * letters + letter];
      while (to < 0 && state !== 0) {
        state = link[state];
        matched = len[state];
        to = next[state * letters + letter];
      }
      if (to < 0) {
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
    return i;
  }

  private letterAt(text: string, at: number): number {
    const c = text.charCodeAt(at);
    return c < 128 ? this.ascii[c] : (this.wide.get(c) ?? -1);
  }

  /** The letter of a character of a form, a new one if it is the first seen. */
  private letterOf(c: number): number {
    const known = c < 128 ? this.ascii[c] : (this.wide.get(c) ?? -1);
    if (known >= 0) return known;
    if (c < 128) this.ascii[c] = this.letters;
    else this.wide.set(c, this.letters);
    return this.letters++;
  }

  /** One letter more of a form being added (generalized suffix automaton: a form may start with what
   * another holds). Returns the state of the form so far. */
  private extend(last: number, c: number): number {
    const { len, link, next, letters } = this;
    const existing = next[last * letters + c];
    if (existing >= 0) return len[last] + 1 === len[existing] ? existing : this.split(last, c, existing);
    const state = this.states++;
    len[state] = len[last] + 1;
    let p = last;
    while (p !== -1 && next[p * letters + c] < 0) {
      next[p * letters + c] = state;
      p = link[p];
    }
    if (p === -1) link[state] = 0;
    else {
      const q = next[p * letters + c];
      link[state] = len[p] + 1 === len[q] ? q : this.split(p, c, q);
    }
    return state;
  }

  /** A copy of `q` for the strings of length len[p] + 1 and shorter that reach it through c. */
  private split(p: number, c: number, q: number): number {
    const { len, link, next, letters } = this;
    const clone = this.states++;
    len[clone] = len[p] + 1;
    link[clone] = link[q];
    next.copyWithin(clone * letters, q * letters, (q + 1) * letters);
    for (let s = p; s !== -1 && next[s * letters + c] === q; s = link[s]) next[s * letters + c] = clone;
    link[q] = clone;
    return clone;
  }
}
