// What every content profile is: a writer of one reply's tokens from its template, seeded by the
// request, short for an ordinary question and long for one asked at length.
import type { ContentProfileName } from '../../config/types.js';
import { between } from '../random.js';
import { Reply, type Piece } from './piece.js';

export interface Profile {
  readonly name: ContentProfileName;
  /** The reply's tokens; `lead` (already tokenized) opens it when given. */
  write(rand: () => number, long: boolean, lead?: Piece): string[];
}

/** The longest ordinary reply: the kit's basic request (max_tokens 64) must end by itself on a
 * reasoning model too, which spends up to 31 tokens first. */
export const SHORT_MAX = 31;
const LONG: readonly [number, number] = [300, 400];

/** A reply with its budget drawn (`short` for an ordinary question), its lead written. */
export function begin(rand: () => number, long: boolean, lead: Piece | undefined, short: readonly [number, number]): Reply {
  const [lo, hi] = long ? LONG : short;
  const reply = new Reply(between(rand, lo, Math.min(hi, long ? hi : SHORT_MAX)) + (lead?.size ?? 0));
  if (lead) reply.add(lead, '');
  return reply;
}
