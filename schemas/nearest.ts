// The name nearest to a mistyped one, for every message that names a mistake (an option, a field of
// a configuration, a fault, a check id): one measure of "near enough", so each says did-you-mean
// alike.
import { closest, distance } from 'fastest-levenshtein';

/** The name nearest to `given`, when it is near enough to be a slip of the keyboard. */
export function nearest(given: string, names: readonly string[]): string | undefined {
  if (!names.length) return undefined;
  const best = closest(given, [...names]);
  return distance(given, best) <= Math.max(2, Math.floor(given.length / 3)) ? best : undefined;
}
