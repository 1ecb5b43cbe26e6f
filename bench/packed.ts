// The package as a user gets it: `npm pack` (its `prepack` builds it), the tarball installed in an
// empty folder (its dependencies from the registry) with no warning (no install-time script for the
// user to approve), then `npx conformance run` there, against the embedded mock.
//   npm run check:package
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, npm_config_yes: 'false' } });

const out = mkdtempSync(join(tmpdir(), 'conformance-pack-'));
const [{ filename, files, size }] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', out], root)) as { filename: string; files: unknown[]; size: number }[];
console.log(`packed ${filename}: ${files.length} files, ${(size / 1024).toFixed(0)} KiB`);
const user = mkdtempSync(join(tmpdir(), 'conformance-user-'));
writeFileSync(join(user, 'package.json'), JSON.stringify({ name: 'a-user', version: '1.0.0', private: true }));
const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', join(out, filename)], { cwd: user, encoding: 'utf8', env: { ...process.env, npm_config_yes: 'false' } });
process.stderr.write(install.stderr);
if (install.status !== 0) throw new Error(`npm install of ${filename} failed (exit ${install.status})`);
const warned = install.stderr.split('\n').filter((l) => /^npm warn install-scripts/.test(l));
if (warned.length) throw new Error(`npm install of ${filename} warned of install scripts:\n${warned.join('\n')}`);
const result = run('npx', ['--no-install', 'conformance', 'run'], user);
if (!/PASSED \(exit code 0\)/.test(result)) throw new Error(`npx conformance run in ${user} did not pass:\n${result}`);
console.log(`installed in ${user}; npx conformance run: ${result.trim().split('\n').at(-1)}`);
