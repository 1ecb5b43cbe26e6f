// Loads the clients asked for, only then (a dynamic import of each package): a client whose packages
// are not installed, or do not load, is named with what went wrong, and the one npm command that adds
// every missing one is said once. Each installed client reports the versions found.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientInfo } from '../report/clients.js';
import type { AnyClient } from './flow.js';

export interface LoadedClients {
  loaded: { client: AnyClient; sdk: unknown }[];
  info: ClientInfo[];
  /** `npm install --save-dev ...`: every package a missing client needs. */
  install?: string;
}

export async function loadClients(clients: readonly AnyClient[]): Promise<LoadedClients> {
  const tried = await Promise.all(
    clients.map(async (client) => {
      try {
        return { client, sdk: await client.load() };
      } catch (e) {
        return { client, error: e as Error };
      }
    }),
  );
  const loaded = tried.flatMap((t) => ('sdk' in t ? [{ client: t.client, sdk: t.sdk }] : []));
  const info = tried.map(
    (t): ClientInfo => ({
      name: t.client.name,
      title: t.client.title,
      packages: t.client.packages.map((name) => ({ name, ...versionOf(name) })),
      installed: 'sdk' in t,
      ...('error' in t && t.error ? { missing: missingWhy(t.error) } : {}),
    }),
  );
  // Only packages Node did not find: a client whose packages are there but did not load (no Chromium
  // for the browser client) says what it lacks in its own line.
  const install = installCommand(info);
  return { loaded, info, ...(install ? { install } : {}) };
}

/** What is known of clients without loading them (their packages' versions where Node finds them,
 * and what else they lack, a Chromium): what a run says of them when the process that was to load
 * them never said, and what `--client` is held to before the first request. */
export function describeClients(clients: readonly AnyClient[]): ClientInfo[] {
  return clients.map((client) => {
    const packages = client.packages.map((name) => ({ name, ...versionOf(name) }));
    const absent = packages.filter((p) => !p.version).map((p) => p.name);
    const lacks = client.lacks?.();
    const missing = [...(absent.length ? [`cannot find ${absent.join(', ')}`] : []), ...(lacks ? [lacks] : [])];
    return { name: client.name, title: client.title, packages, installed: !missing.length, ...(missing.length ? { missing: missing.join('; ') } : {}) };
  });
}

/** The one command that adds the packages Node did not find, among those clients'. */
export function installCommand(info: readonly ClientInfo[]): string | undefined {
  const missing = [...new Set(info.filter((c) => !c.installed).flatMap((c) => c.packages.filter((p) => !p.version).map((p) => p.name)))];
  return missing.length ? `npm install --save-dev ${missing.join(' ')}` : undefined;
}

/** Why a client did not load, in a line: the package Node could not find, or the error it threw. */
function missingWhy(e: Error): string {
  const code = (e as NodeJS.ErrnoException).code;
  const found = /Cannot find (?:package|module) '([^']+)'/.exec(e.message);
  // An import's code, or a require's (the command line's bundle requires them: scripts/bundle-bin.ts).
  if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && found) return `cannot find ${found[1]}`;
  return e.message.startsWith('no Chromium') ? e.message : `it did not load: ${e.message.split('\n')[0]}`;
}

/** The version of an installed package, where Node resolves it from here (as the dynamic import does). */
function versionOf(name: string): { version?: string } {
  let file: string;
  try {
    file = fileURLToPath(import.meta.resolve(name));
  } catch {
    return {};
  }
  // Up from its entry point to the package.json that names it.
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return { version: pkg.version };
    } catch {
      // no package.json here: further up
    }
  }
  return {};
}
