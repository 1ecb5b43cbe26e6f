// The mock's browser entry reaches nothing of Node: every module it imports, followed through the
// built files, imports no `node:` module and names no Node global, so a bundler needs no polyfill.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ENTRY = fileURLToPath(new URL('../../dist/mock/browser.js', import.meta.url));

function graph(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*'(\.[^']+\.js)'/g)) visit(resolve(dirname(file), m[1]));
  };
  visit(entry);
  return seen;
}

describe('chat-api-conformance/mock/browser', () => {
  it('imports no node: module and uses no Buffer, process or require, through every file it reaches', () => {
    const files = graph(ENTRY);
    expect(files.size).toBeGreaterThan(20);
    const offenders: string[] = [];
    for (const [file, text] of files) {
      const code = text.replace(/\/\/.*$/gm, '');
      if (/from\s*'node:|import\('node:|\brequire\(/.test(code)) offenders.push(`${file}: imports Node`);
      // Reached at run time only where Node is there (bytes.ts, the gzip variation): never at import.
      if (/^(?!.*globalThis).*\b(Buffer|process)\./m.test(code)) offenders.push(`${file}: uses a Node global`);
    }
    expect(offenders).toEqual([]);
  });
});
