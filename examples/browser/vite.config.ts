// `npx vite examples/browser` serves the page; `npm run build` first, since the page imports the
// built package (as an app that installed chat-api-conformance would).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  resolve: { alias: { 'chat-api-conformance/mock/browser': fileURLToPath(new URL('../../dist/mock/browser.js', import.meta.url)) } },
  build: { target: 'es2022' },
});
