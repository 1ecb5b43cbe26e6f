// Makes dist/bin/conformance.js one minified file, in place of the entry tsc wrote: a command that
// loaded some 200 modules one by one (resolving, reading, compiling each) spent 0.65 s of CPU before
// its first line of work; one file spends about half of that (docs/performance.md, "What a
// command's start costs"). The library's entry points (dist/suites, dist/mock) stay as tsc wrote
// them: an importer's bundler does this for them. The clients' packages stay outside: they are
// optional, found where the user installed them, as a dynamic import finds them.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../bin/conformance.js', import.meta.url));

/** Optional peers (package.json), and Chromium's driver: imported only when a client runs. */
const OUTSIDE = ['openai', 'openai/*', 'zod', 'ai', '@ai-sdk/*', '@langchain/*', 'playwright-core', '*.cjs'];

await build({
  entryPoints: [ENTRY],
  outfile: ENTRY,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // Names are minified too: no message is made of a name of ours (a client's error is named by its
  // own package's class), and a function sent to a browser page (clients/browser.ts) must not call a
  // helper that keeping names would add.
  minify: true,
  // Some dependencies are CommonJS and call require: an ES module has none until it is made.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  external: OUTSIDE,
  logLevel: 'warning',
});
