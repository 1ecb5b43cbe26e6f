// The pages a user reads hold together: the README stays a short page with the two commands CI runs
// too, every link between the pages reaches a file and a heading that exist, every table row has its
// header's cells and every fence a blank line around it, every guide is in the index, and no text is
// written in two places (it moves; it is not copied). The commands they show are run by
// commands.test.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, prose } from '../support/markdown.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const markdownIn = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownIn(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
const PAGES = ['README.md', ...markdownIn('docs')];

describe('README.md', () => {
  const readme = read('README.md');

  it('is a short page (200 lines at most)', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
  });

  it('gives the two commands of a fresh machine, and CI runs the test command it gives', () => {
    const quick = readme.slice(readme.indexOf('## Quick start'));
    const commands = [...quick.matchAll(/^```sh\n([\s\S]*?)^```/gm)][0][1].split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
    expect(commands.filter(Boolean)).toEqual(['npm install && npm run build && npx conformance run', 'npm test']);
    const ci = read('.ci/run')
      .split('\n')
      .map((l) => l.trim());
    expect(ci, '.ci/run runs the test command README.md gives').toContain('npm test');
  });
});

/** A page's anchors, read once: the compatibility table links hundreds of times into each evidence page. */
const anchorsRead = new Map<string, Set<string>>();
const anchorsIn = (file: string) => anchorsRead.get(file) ?? anchorsRead.set(file, anchorsOf(read(file))).get(file)!;

describe('the documentation', () => {
  it.each(PAGES)('%s: every relative link reaches a file, and a heading of it', (page) => {
    const text = prose(read(page));
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const file = path ? join(dirname(page), path) : page;
      if (!existsSync(join(root, file))) {
        broken.push(`${target}: no file ${file}`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchorsIn(file).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${file}`);
    }
    expect(broken).toEqual([]);
  });

  it.each(PAGES)('%s: every table row has as many cells as its header, and a fence stands apart from the text around it', (page) => {
    const lines = read(page).split('\n');
    const wrong: string[] = [];
    // A cell's own bars are in code (`a|b`) or escaped (\|): not counted.
    const cells = (line: string) =>
      line
        .replace(/`[^`]*`/g, '')
        .replace(/\\\|/g, '')
        .split('|').length;
    let fence: string | undefined;
    let header: number | undefined;
    lines.forEach((line, i) => {
      const f = /^(`{3,})/.exec(line);
      if (f && !fence) {
        fence = f[1];
        if (i > 0 && lines[i - 1].trim() !== '') wrong.push(`line ${i + 1}: a fence opens right under text`);
        return;
      }
      if (fence) {
        if (line.startsWith(fence) && !line.slice(fence.length).trim()) {
          fence = undefined;
          if (i + 1 < lines.length && lines[i + 1].trim() !== '') wrong.push(`line ${i + 1}: text follows a closing fence on the next line`);
        }
        return;
      }
      if (!line.startsWith('|')) return void (header = undefined);
      if (header === undefined) header = cells(line);
      else if (cells(line) !== header) wrong.push(`line ${i + 1}: ${cells(line) - 1} cells where the header has ${header - 1}`);
    });
    expect(wrong).toEqual([]);
  });

  it('the index (docs/README.md) lists every guide', () => {
    const index = read('docs/README.md');
    // A page of docs/X/ beside a page docs/X.md is that page's own (the compatibility table's evidence).
    const ownedBy = (p: string) => existsSync(join(root, `${dirname(p)}.md`));
    const guides = PAGES.filter((p) => p.startsWith('docs/') && !p.startsWith('docs/reference/') && p !== 'docs/README.md' && !ownedBy(p)).map((p) => relative('docs', p));
    const missing = guides.filter((g) => !index.includes(`](${g})`));
    expect(missing, 'guides missing from docs/README.md: list each under "More guides"').toEqual([]);
  });

  it('writes nothing twice: no run of twelve words is in two pages, or twice in one (the generated reference repeats its own data)', () => {
    const N = 12;
    const where = new Map<string, Set<string>>();
    const twiceInOne = new Set<string>();
    for (const page of PAGES) {
      // A page a script writes from data (the reference, the compatibility table) repeats its own data.
      const generated = page.startsWith('docs/reference/') || /<!-- (Generated|Written) by `npm run/.test(read(page).slice(0, 400));
      const group = generated ? 'docs/reference/' : page;
      // A generated page quotes the kit's own findings (`> ...`, the compatibility evidence): output, not prose.
      const words = (generated ? prose(read(page)).replace(/^> .*$/gm, '') : prose(read(page)))
        .replace(/<!--[\s\S]*?-->/g, '')
        .replace(/^\|?[-| ]+\|?$/gm, '')
        .toLowerCase()
        .split(/[^\p{L}\p{N}'.=/-]+/u)
        .filter(Boolean);
      const seen = new Set<string>();
      for (let i = 0; i + N <= words.length; i++) {
        const run = words.slice(i, i + N).join(' ');
        if (seen.has(run) && group !== 'docs/reference/') twiceInOne.add(`${page}: ${run}`);
        seen.add(run);
        where.set(run, (where.get(run) ?? new Set()).add(group));
      }
    }
    const twice = [...where].filter(([, groups]) => groups.size > 1).map(([run, groups]) => `${[...groups].join(', ')}: ${run}`);
    expect([...twice, ...twiceInOne]).toEqual([]);
  });
});
