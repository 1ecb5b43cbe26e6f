// Which parent's end stops a command (bin/npm-parent.ts): the shell npm runs it in, or npm itself,
// and no other. The stop itself, through npm's npx and `kill $!`, is shown by test/docs/commands.test.ts.
import { describe, expect, it } from 'vitest';
import { startedByNpm } from '../../bin/npm-parent.js';

const npx = { npm_command: 'exec', npm_lifecycle_script: "'conformance'" };
const run = { npm_command: 'run', npm_lifecycle_script: 'conformance mock --port 8080' };

describe('the parent npm gave a command', () => {
  it("is npm's shell running the script, or npm itself", () => {
    expect(startedByNpm(npx, ['sh', '-c', "'conformance' mock --port 8080"])).toBe(true);
    expect(startedByNpm(run, ['/bin/sh', '-c', 'conformance mock --port 8080 --pace instant'])).toBe(true);
    expect(startedByNpm(npx, ['npm exec conformance mock'])).toBe(true);
    expect(startedByNpm(npx, ['node', '/usr/lib/node_modules/npm/bin/npm-cli.js', 'exec', 'conformance'])).toBe(true);
    // No /proc to read the parent from: npm's variables alone.
    expect(startedByNpm(npx, undefined)).toBe(true);
  });

  it("is not one that inherited npm's variables: a test runner, a script of the user's, nohup", () => {
    expect(startedByNpm({ npm_command: 'exec', npm_lifecycle_script: 'vitest run' }, ['node', '/x/node_modules/vitest/dist/workers/forks.js'])).toBe(false);
    expect(startedByNpm(run, ['bash', 'dev.sh'])).toBe(false);
    expect(startedByNpm(run, ['bash', '-c', 'set +e; conformance mock &'])).toBe(false);
    expect(startedByNpm(npx, ['nohup', 'npx', 'conformance', 'mock'])).toBe(false);
    expect(startedByNpm({}, ['sh', '-c', 'conformance mock'])).toBe(false);
  });

  it('is none where the npm script puts the command in the background or out of reach itself', () => {
    for (const script of ['conformance mock &', 'conformance mock > mock.log 2>&1 &', 'nohup conformance mock', 'setsid conformance mock'])
      expect(startedByNpm({ npm_command: 'run', npm_lifecycle_script: script }, ['sh', '-c', script]), script).toBe(false);
    for (const script of ['conformance mock 2>&1', 'npm run build && conformance mock', 'conformance mock |& tee log'])
      expect(startedByNpm({ npm_command: 'run', npm_lifecycle_script: script }, ['sh', '-c', script]), script).toBe(true);
  });
});
