// The command line's code cache (bin/conformance.ts): made by the first command, used as it is by the
// next of its kind, grown once by a command of another kind (a cache V8 refused would be written
// again), and never a reason for a command to fail: a cache of garbage, a folder that cannot be
// written, or the cache turned off, and the command does the same. Each test has a cache folder of
// its own.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

const CLI = fileURLToPath(new URL('../../dist/bin/cli.cjs', import.meta.url));
const VERSION = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')).version;
const digest = createHash('sha1').update(CLI).update('\0').update(readFileSync(CLI)).digest('hex');
const NAME = `cli-${process.version}-${process.arch}-${digest}.cache`;

const home = () => mkdtempSync(join(tmpdir(), 'code-cache-'));
const folder = (xdg: string) => join(xdg, 'chat-api-conformance');
const version = (xdg: string, env: Record<string, string> = {}) => cli(['--version'], { XDG_CACHE_HOME: xdg, ...env });
/** The commands whose code a cache file holds: its names before the NUL ('' for the options alone). */
const holds = (file: Buffer) => file.subarray(0, file.indexOf(0)).toString('latin1').split(',');

describe('the code cache of the command line', () => {
  it('is written by the first command, under a name of this build and this Node, and used as it is by the next of its kind', async () => {
    const xdg = home();
    const first = await version(xdg);
    expect([first.code, first.stdout.trim()]).toEqual([0, VERSION]);
    expect(readdirSync(folder(xdg))).toEqual([NAME]);
    const written = readFileSync(join(folder(xdg), NAME));
    expect(written.length).toBeGreaterThan(100_000);
    expect(holds(written)).toEqual(['']);
    // Made a minute ago: a command that rewrote it would leave it new.
    const before = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    utimesSync(join(folder(xdg), NAME), before, before);
    const second = await version(xdg);
    expect(second.stdout.trim()).toBe(VERSION);
    expect(statSync(join(folder(xdg), NAME)).mtimeMs).toBe(before.getTime());
    expect(readFileSync(join(folder(xdg), NAME)).equals(written)).toBe(true);
  });

  it('a command of a kind it does not hold adds its code once; the next of that kind uses it as it is', async () => {
    const xdg = home();
    await version(xdg);
    const before = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    utimesSync(join(folder(xdg), NAME), before, before);
    const listed = await cli(['list', '--json'], { XDG_CACHE_HOME: xdg });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).checks.length).toBeGreaterThan(50);
    const grown = readFileSync(join(folder(xdg), NAME));
    expect(holds(grown)).toEqual(['', 'list']);
    utimesSync(join(folder(xdg), NAME), before, before);
    expect((await cli(['list'], { XDG_CACHE_HOME: xdg })).code).toBe(0);
    expect((await version(xdg)).stdout.trim()).toBe(VERSION);
    expect(statSync(join(folder(xdg), NAME)).mtimeMs).toBe(before.getTime());
    expect(readFileSync(join(folder(xdg), NAME)).equals(grown)).toBe(true);
  });

  it("is this copy's: the same build elsewhere (another project's install) makes a cache of its own", async () => {
    const xdg = home();
    const copy = join(mkdtempSync(join(tmpdir(), 'code-cache-copy-')), 'bin');
    mkdirSync(copy);
    for (const f of ['conformance.js', 'cli.cjs']) copyFileSync(join(dirname(CLI), f), join(copy, f));
    expect((await version(xdg)).stdout.trim()).toBe(VERSION);
    const elsewhere = await cli(['--version'], { XDG_CACHE_HOME: xdg }, undefined, join(copy, 'conformance.js'));
    expect(elsewhere.stdout.trim()).toBe(VERSION);
    // V8 keeps the file name a function was compiled under in its cache: shared, a crash in one copy
    // was reported at the path of the other.
    expect(readdirSync(folder(xdg)).sort()).toHaveLength(2);
    expect(readdirSync(folder(xdg))).toContain(NAME);
  });

  it('a cache of garbage is refused, the command runs as without one, and a good one takes its place', async () => {
    const xdg = home();
    await version(xdg);
    const garbage = Buffer.alloc(300_000, 0xa5);
    writeFileSync(join(folder(xdg), NAME), garbage);
    const r = await cli(['list'], { XDG_CACHE_HOME: xdg });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('chat.role.system');
    expect(r.stderr).toBe('');
    const rewritten = readFileSync(join(folder(xdg), NAME));
    expect(rewritten.equals(garbage)).toBe(false);
    expect((await version(xdg)).stdout.trim()).toBe(VERSION);
  });

  it('where its folder cannot be made, or the cache is turned off, nothing is written and the command is the same', async () => {
    const xdg = home();
    // A file where the folder would be.
    writeFileSync(folder(xdg), 'not a folder');
    const blocked = await version(xdg);
    expect([blocked.code, blocked.stdout.trim(), blocked.stderr]).toEqual([0, VERSION, '']);
    const off = home();
    const r = await version(off, { CONFORMANCE_NO_CODE_CACHE: '1' });
    expect([r.code, r.stdout.trim()]).toEqual([0, VERSION]);
    expect(readdirSync(off)).toEqual([]);
  });

  it('keeps the caches of the four builds that ran last', async () => {
    const xdg = home();
    await version(xdg, { CONFORMANCE_NO_CODE_CACHE: '1' });
    const dir = folder(xdg);
    await version(xdg);
    const old = ['a', 'b', 'c', 'd', 'e'].map((x, i) => {
      const name = `cli-${process.version}-${process.arch}-${x.repeat(40)}.cache`;
      writeFileSync(join(dir, name), 'an older build');
      const at = new Date(Date.now() - (i + 1) * 60_000);
      utimesSync(join(dir, name), at, at);
      return name;
    });
    // This build's cache refused: written again, the oldest others go.
    writeFileSync(join(dir, NAME), 'refused');
    await version(xdg);
    expect(readdirSync(dir).sort()).toEqual([NAME, ...old.slice(0, 3)].sort());
  });
});
