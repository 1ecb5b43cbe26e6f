// The name nearest to a mistyped one, for every message that names a mistake (an option, a field of
// a configuration, a fault, a check id): one measure of "near enough", so each says did-you-mean
// alike.
import { closest, distance } from 'fastest-levenshtein';

/** The name nearest to `given`, when it is near enough to be a slip of the keyboard. */
export function nearest(given: string, names: readonly string[]): string | undefined {
  const near = Math.max(2, Math.floor(given.length / 3));
  // Two names further apart in length than that are further apart in edits: a header of a megabyte
  // (a fault's name sent to the mock) is compared with nothing, where comparing it took seconds.
  const candidates = names.filter((n) => Math.abs(n.length - given.length) <= near);
  if (!candidates.length) return undefined;
  const best = closest(given, candidates);
  return distance(given, best) <= near ? best : undefined;
}
