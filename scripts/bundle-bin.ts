// Makes dist/bin/cli.cjs, the command line in one minified CommonJS file, from the modules tsc wrote
// (dist/bin/cli.js and what it imports). A command that loaded some 200 modules one by one
// (resolving, reading, compiling each) took 0.71 s of CPU to print its version; one file, loaded by
// bin/conformance.ts with V8's code cache, takes 0.28 s (docs/performance.md, "What a command's start
// costs"). CommonJS because Node 20 gives a code cache to a script, not to
// an ES module. The library's entry points (dist/suites, dist/mock) stay as tsc wrote them: an
// importer's bundler does this for them. The clients' packages stay outside: they are optional, found
// where the user installed them; so does badge-maker, which only `conformance badge` loads.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const DIST_BIN = fileURLToPath(new URL('../bin/', import.meta.url));

/** Optional peers (package.json), and Chromium's driver: imported only when a client runs. */
const PEERS = ['openai', 'openai/*', 'zod', 'ai', '@ai-sdk/*', '@langchain/*', 'playwright-core', 'esbuild', '*.cjs'];
/** Dependencies only one command imports, loaded from node_modules (where npm installed them anyway)
 * when it runs: badge-maker's width tables, 900 KB of JSON, would make the one file 2.8 MB (1.8
 * without), every start reading them; 0.02 s of CPU more where there is no code cache. */
const ON_DEMAND = ['badge-maker'];
const OUTSIDE = [...PEERS, ...ON_DEMAND];

const result = await build({
  entryPoints: [`${DIST_BIN}cli.js`],
  outfile: `${DIST_BIN}cli.cjs`,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.19',
  // Names are minified too: no message is made of a name of ours (a client's error is named by its
  // own package's class), and a function sent to a browser page (clients/browser.ts) must not call a
  // helper that keeping names would add.
  minify: true,
  // What an ES module has and a script has not: its URL (the file's, which bin/conformance.ts names
  // as the script's), and its resolver, which the entry passes in.
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__importMetaUrl', 'import.meta.resolve': '__importMetaResolve' },
  // import() of a client's package becomes a require (Node 20.19 requires an ES module too): a script
  // compiled from a code cache has lost what Node's loader needs for an import() (Node 20).
  supported: { 'dynamic-import': false },
  external: OUTSIDE,
  logLevel: 'silent',
});
// A warning here is a module whose meaning the bundle changes (an import.meta left empty): not shipped.
if (result.warnings.length) {
  for (const w of result.warnings) console.error(`${w.location?.file ?? ''}:${w.location?.line ?? ''}: ${w.text}`);
  process.exit(1);
}
