// What the clients write to the console while their flows run (LangChain's advice to upgrade, a
// chunk the openai SDK could not parse): kept out of the command's output, where it would read as the
// kit's own words, and kept as what each run's flows logged. Runs that overlap share one patch of the
// console, restored when the last of them ends.
const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;
type Method = (typeof METHODS)[number];

/** The most lines kept of what the clients logged in one run. */
const KEPT = 20;

let saved: Record<Method, (...args: unknown[]) => void> | undefined;
const listeners = new Set<(line: string) => void>();

/** `fn` with the console taken from the clients, and the distinct lines they logged meanwhile. */
export async function hushed<T>(fn: () => Promise<T>): Promise<{ value: T; logged: string[] }> {
  const logged = new Set<string>();
  const listen = (line: string) => {
    if (logged.size < KEPT) logged.add(line);
  };
  if (!listeners.size) {
    saved = Object.fromEntries(METHODS.map((m) => [m, console[m]])) as typeof saved;
    for (const m of METHODS) console[m] = (...args: unknown[]) => listeners.forEach((l) => l(args.map(String).join(' ').split('\n')[0].slice(0, 300)));
  }
  listeners.add(listen);
  try {
    return { value: await fn(), logged: [...logged] };
  } finally {
    listeners.delete(listen);
    if (!listeners.size && saved) {
      for (const m of METHODS) console[m] = saved[m];
      saved = undefined;
    }
  }
}
