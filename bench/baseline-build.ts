// The last release built beside the working tree, for the instruction counts (bench/instructions.ts)
// to measure both in one run. The commit comes from bench/baseline.json (a release moves it, see
// docs/performance.md), or BENCH_BASELINE names another. It is exported with `git archive` into a
// directory of the system's temp dir named by its full hash (no worktree is registered, nothing of the
// repository changes), given the working tree's node_modules, and built with its own `npm run build`;
// a directory built once is used again.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What bench/baseline.json holds. */
export interface BaselineFile {
  /** The commit of the last release, which every path is counted against. */
  commit: string;
  /** How much more expensive than the baseline a path may get before the gate fails (0.03: 3%),
   * unless the run's own spread on that path is wider (bench/instructions.ts). */
  tolerance: number;
  /** Costs taken on purpose since the baseline, by path: today's ratio to it, and why. The gate holds
   * such a path to its ratio (within the tolerance), not to 1; a release, moving the baseline,
   * empties this (docs/performance.md). */
  accepted?: Record<string, { ratio: number; why: string }>;
}

export const ROOT = realpathSync(new URL('../..', import.meta.url));

export function baselineFile(): BaselineFile {
  return JSON.parse(readFileSync(join(ROOT, 'bench/baseline.json'), 'utf8')) as BaselineFile;
}

const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The full hash of `commit`; a clone without it (a shallow one) is told how to get it. */
export function resolveCommit(commit: string): string {
  try {
    return git(['rev-parse', '--verify', `${commit}^{commit}`]);
  } catch {
    throw new Error(`the baseline commit ${commit} is not in this clone (a shallow clone? \`git fetch --unshallow\`, or name another with BENCH_BASELINE)`);
  }
}

/** A short name of the working tree's state: its commit, and `+` when files differ from it. */
export function workingTreeName(): string {
  const head = git(['rev-parse', '--short', 'HEAD']);
  return git(['status', '--porcelain', '--untracked-files=no']) ? `${head}+` : head;
}

/** The root of a build of `sha` (full hash), made if it is not there yet. */
export function buildAt(sha: string): string {
  const dir = join(tmpdir(), `chat-api-conformance-${sha}`);
  const done = join(dir, '.bench-built');
  if (existsSync(done)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('git', ['archive', '--format=tar', sha], { cwd: ROOT, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${sha} failed: ${archive.stderr}`);
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
  // The baseline runs on today's dependencies: the counts then differ by the kit's own code, not by a
  // dependency's (a baseline that needs a package today's tree no longer has fails to build, and says so).
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'), 'dir');
  const built = spawnSync('npm', ['run', 'build'], { cwd: dir, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build of ${sha} failed:\n${built.stdout}\n${built.stderr}`);
  writeFileSync(done, `${new Date().toISOString()}\n`);
  return dir;
}
