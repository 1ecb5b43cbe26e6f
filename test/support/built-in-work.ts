// Work held as a count, not a time (issue 35: a ratio of CPU times failed CI on a busy machine): the
// calls a piece of code makes to built-in methods, each weighed by what it touches, counted by
// wrapping the methods for the duration of one synchronous call. A busy machine changes no count.

/** A built-in method to count, and what one call of it costs (characters scanned or copied, say). */
export interface Counted {
  on: object;
  method: PropertyKey;
  cost: (self: any, args: any[], result: any) => number;
}

/** The summed cost of the counted calls `work` makes; every method is restored before it returns. */
export function builtInWork(counted: readonly Counted[], work: () => void): number {
  let total = 0;
  const undo: (() => void)[] = [];
  try {
    for (const { on, method, cost } of counted) {
      const target = on as Record<PropertyKey, unknown>;
      const original = target[method] as (...args: unknown[]) => unknown;
      target[method] = function (this: unknown, ...args: unknown[]) {
        const result = original.apply(this, args);
        total += cost(this, args, result);
        return result;
      };
      undo.push(() => (target[method] = original));
    }
    work();
  } finally {
    for (const restore of undo.reverse()) restore();
  }
  return total;
}
