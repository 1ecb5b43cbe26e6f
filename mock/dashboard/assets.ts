// The page's files, shipped built in the package (dist/mock/dashboard/page/): read once when a
// server starts, served from memory. Nothing is built, fetched or generated at run time.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  type: string;
  bytes: Buffer;
}

/** URL path under /__mock/ -> file of the built page, and its type. */
const FILES: Record<string, [file: string, type: string]> = {
  '': ['index.html', 'text/html; charset=utf-8'],
  'dashboard.js': ['app.js', 'text/javascript; charset=utf-8'],
  'dashboard.css': ['dashboard.css', 'text/css; charset=utf-8'],
  'dashboard.svg': ['icon.svg', 'image/svg+xml'],
};

const BUILT = join('dist', 'mock', 'dashboard', 'page');

/** The built page: in the nearest folder above this file that holds dist/mock/dashboard/page (the
 * package's root, the same from the sources, which the tests run, and from dist/, which users run). */
function pageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = dir; ; dir = up) {
    if (existsSync(join(dir, BUILT))) return join(dir, BUILT);
    up = dirname(dir);
    if (up === dir) return join(dirname(fileURLToPath(import.meta.url)), 'page');
  }
}

export const ASSET_PATHS = Object.keys(FILES);

export const PAGE_DIR = pageDir();

let loaded: Map<string, Asset> | Error | undefined;

/** The page's files by URL path, or why they cannot be served (the package was not built). */
export function dashboardAssets(): Map<string, Asset> | Error {
  if (loaded) return loaded;
  try {
    loaded = new Map(Object.entries(FILES).map(([path, [file, type]]) => [path, { type, bytes: readFileSync(join(PAGE_DIR, file)) }]));
  } catch (e) {
    loaded = new Error(`the dashboard's page is not built (${(e as Error).message}); run npm run build`);
  }
  return loaded;
}
