// Markdown as chat UIs must render it: headings, a bullet and a numbered list, a table, a link,
// inline code and a fenced code block. An ordinary answer is a heading and what fits after it; an
// answer asked at length walks every kind of block in turn, so it holds them all.
import { fitting, pieces, rotation, type Piece } from './piece.js';
import { begin, type Profile } from './profile.js';

const TITLES = pieces(['# Release notes', '# A short guide', '# Setting up the client', '# How the cache works']);

/** A heading with the paragraph it introduces: a reply never ends on a bare heading. */
const SECTIONS = pieces([
  '## Getting started\n\nRun `npm install`, then `npm test` to check the setup.',
  '## Why it matters\n\nA **stable** answer makes a *flaky* test easy to spot.',
  '## Configuration\n\nSet `retries` to `3`; the [reference](https://example.com/docs/config) lists every option.',
  '## Next steps\n\nRead the [guide](https://example.com/guide) and try the `--watch` flag.',
  '### Notes\n\nThe `timeout` is in **milliseconds**, not seconds.',
]);

const BULLETS = pieces([
  '- Fast startup\n- Small memory use\n- No setup beyond a key',
  '- **Input**: a JSON file\n- **Output**: a report\n  - nested: one line per check',
  '- Read the `README`\n- Try the [examples](https://example.com/examples)\n- Ask for help',
]);

const NUMBERED = pieces(['1. Install the package\n2. Add your key\n3. Run the check', '1. Read the error\n2. Fix the cause\n3. Run it again']);

const TABLES = pieces([
  '| Option | Default | Meaning |\n| --- | ---: | --- |\n| `retries` | 3 | attempts after the first |\n| `timeout` | 30 | seconds per request |',
  '| Model | Context |\n| :--- | ---: |\n| small | 8k |\n| large | 128k |',
]);

const CODE = pieces([
  '```ts\nconst client = new Client({ retries: 3 });\nconst answer = await client.ask("Hello?");\nconsole.log(answer);\n```',
  '```python\nfor item in items:\n    if item.ready:\n        print(item.name)\n```',
  '```sh\nnpm install\nnpm test -- --watch\n```',
]);

const QUOTES = pieces(['> **Note:** the defaults suit local development.', '> Measure first, then tune.']);

/** What an ordinary answer may hold after its heading: each block small enough to fit. */
const HEADINGS = pieces(['### Summary', '### Steps', '## Quick answer', '### Example']);
const SMALL = pieces([
  'Run `npm test` first.',
  'See [the docs](https://example.com).',
  '- Fast\n- Small\n- Safe',
  '1. Read\n2. Write\n3. Test',
  '| A | B |\n|---|---|\n| 1 | 2 |',
  '```sh\nnpm test\n```',
  'It is **done**.',
]);

/** The order blocks come in when asked at length: one of each kind per round. */
const ROUND: readonly (readonly Piece[])[] = [SECTIONS, BULLETS, NUMBERED, SECTIONS, TABLES, CODE, SECTIONS, QUOTES];

export const markdown: Profile = {
  name: 'markdown',
  write(rand, long, lead) {
    const reply = begin(rand, long, lead, [18, 31]);
    if (!long) {
      reply.add(fitting(rand, HEADINGS, reply)!, '\n\n');
      // One pass from a random block: what fits is added, nothing twice.
      const start = Math.floor(rand() * SMALL.length);
      for (let i = 0; i < SMALL.length; i++) {
        const b = SMALL[(start + i) % SMALL.length];
        if (reply.fits(b)) reply.add(b, '\n\n');
      }
      return reply.tokens;
    }
    reply.add(fitting(rand, TITLES, reply)!, '\n\n');
    const next = new Map(ROUND.map((pool) => [pool, rotation(rand, pool)]));
    for (let i = 0, b = next.get(ROUND[0])!(reply); b; b = next.get(ROUND[++i % ROUND.length])!(reply)) reply.add(b, '\n\n');
    return reply.tokens;
  },
};
