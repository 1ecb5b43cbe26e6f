// No piece of a key in any report (issue 41). A server that sends the key back in two pieces (across
// two SSE content deltas, as two words of a content or an error message, in a header), each piece at
// a different place in each answer so that every bound a text is cut at falls in it somewhere: `run`,
// `fuzz`, `load` and `clients`, with every reporter, show no run of 8 of its characters, in any form
// the redactor knows, on standard output, standard error or in any report file. A piece shorter than
// 8 may show: it is as short as a text that turns up by chance (engine/redact.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../engine/redact.js';
import { startMockServer } from '../mock/http.js';
import { REPORTER_NAMES } from '../report/index.js';
import { cli } from './support/cli.js';
import { within } from './support/machine.js';
import { runsShown } from './support/secrets.js';
import { splitKeyMock } from './support/split-key.js';

/** A key as a provider makes them: no report of the kit writes 8 of its characters in a row by chance. */
const KEY = 'sk-proj-7QZ3VX9KJ2MNP4GHWU8BYFcT5rLd';
const FILE_REPORTERS = REPORTER_NAMES.filter((r) => r !== 'pretty');
const COMMANDS: Record<string, string[]> = {
  run: ['run', '--fuzz-runs', '8'],
  // Enough requests that some is past 4 KiB, which the server answers 500 with the key.
  fuzz: ['fuzz', '--seed', '5', '--runs', '40'],
  load: ['load', '--concurrency', '1,4', '--requests', '12'],
  clients: ['clients', '--client', 'openai', '--client', 'ai-sdk', '--client', 'langchain'],
};

const dir = mkdtempSync(join(tmpdir(), 'conformance-split-key-'));
let server: Awaited<ReturnType<typeof startMockServer>>;
beforeAll(async () => {
  server = await startMockServer({ mock: splitKeyMock(KEY) });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a key the server sends back in pieces', () => {
  it.each(Object.keys(COMMANDS))(
    '%s shows no run of 8 of its characters in any report format',
    async (command) => {
      const files = FILE_REPORTERS.map((r) => join(dir, `${command}.${r}`));
      const ran = await cli(
        [
          ...COMMANDS[command],
          '--base-url',
          server.url,
          '--api-key',
          KEY,
          '--timeout',
          String(within(5_000)),
          '--reporter',
          'pretty',
          ...FILE_REPORTERS.flatMap((r, i) => ['--reporter', `${r}=${files[i]}`]),
        ],
        { CONFORMANCE_API_KEY: '' },
        within(120_000),
      );
      expect([0, 1], `exit ${ran.code}: ${ran.stderr.slice(-800)}`).toContain(ran.code);
      const outputs: [string, string][] = [['stdout', ran.stdout], ['stderr', ran.stderr], ...FILE_REPORTERS.map((r, i): [string, string] => [r, readFileSync(files[i], 'utf8')])];
      for (const [name, text] of outputs) expect(runsShown(text, KEY), name).toEqual([]);
      // The pieces reached the report, where they were redacted: the server was heard.
      expect(readFileSync(files[FILE_REPORTERS.indexOf('json')], 'utf8')).toContain(REDACTED);
    },
    within(150_000),
  );
});
