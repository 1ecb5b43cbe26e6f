// Template text tokenized once, when the module loads: a reply is put together from these token
// lists, never re-tokenized per request. A piece starts and ends with a non-space character and a
// separator always begins with white space, so the tokens of two pieces joined are the tokens of
// each (white space opens a token, and a piece never ends inside a run of letters that the next
// could extend): the count stays exact and max_tokens cuts between tokens.
import { splitTokens } from '../tokens.js';

/** What goes between two pieces: nothing only before the first piece of a reply. */
export type Sep = '' | ' ' | '\n' | '\n\n';
const SEPS: readonly Sep[] = ['', ' ', '\n', '\n\n'];

export interface Piece {
  readonly text: string;
  /** Tokens of the piece, the same whatever separator leads it (it joins the first token). */
  readonly size: number;
  readonly after: Readonly<Record<Sep, readonly string[]>>;
}

export function piece(text: string): Piece {
  if (!text || /^\s|\s$/.test(text)) throw new Error(`a template piece must start and end with a visible character: ${JSON.stringify(text)}`);
  const after = Object.fromEntries(SEPS.map((s) => [s, Object.freeze(splitTokens(s + text))])) as Record<Sep, readonly string[]>;
  return Object.freeze({ text, size: after[''].length, after: Object.freeze(after) });
}

export const pieces = (texts: readonly string[]): readonly Piece[] => Object.freeze(texts.map(piece));

/** A reply being written, up to a budget of tokens. */
export class Reply {
  readonly tokens: string[] = [];
  constructor(public budget: number) {}

  get left(): number {
    return this.budget - this.tokens.length;
  }

  fits(p: Piece): boolean {
    return p.size <= this.left;
  }

  /** Appends `p` after `sep`, or with no separator when it opens the reply. */
  add(p: Piece, sep: Sep): this {
    const list = p.after[this.tokens.length ? sep : ''];
    for (let i = 0; i < list.length; i++) this.tokens.push(list[i]);
    return this;
  }
}

/** The pieces of a pool in turn from a random one on (skipping those that do not fit): a long
 * reply does not say the same thing twice in a row. */
export function rotation(rand: () => number, pool: readonly Piece[]): (reply: Reply) => Piece | undefined {
  let at = Math.floor(rand() * pool.length);
  return (reply) => {
    for (let i = 0; i < pool.length; i++) {
      const p = pool[at++ % pool.length];
      if (reply.fits(p)) return p;
    }
    return undefined;
  };
}

/** A piece of the pool that fits what is left of the reply, from a random place on: the pool is
 * walked once, so a reply with no room left ends rather than overflows. */
export function fitting(rand: () => number, pool: readonly Piece[], reply: Reply): Piece | undefined {
  const start = Math.floor(rand() * pool.length);
  for (let i = 0; i < pool.length; i++) {
    const p = pool[(start + i) % pool.length];
    if (reply.fits(p)) return p;
  }
  return undefined;
}
