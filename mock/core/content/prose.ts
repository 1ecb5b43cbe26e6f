// The default profile: sentences with capitals and punctuation, in paragraphs separated by blank
// lines, as most chat answers read.
import { fitting, pieces } from './piece.js';
import { begin, type Profile } from './profile.js';
import { between } from '../random.js';

export const SENTENCES = pieces([
  'The cache keeps recent answers close at hand.',
  'Most requests finish in well under a second.',
  'Each step is small, and each one can be checked.',
  'Start with the simplest version that works.',
  'What happens when the network drops halfway through?',
  "It's worth measuring before tuning anything.",
  'A good default saves everyone time.',
  'The second attempt usually succeeds.',
  'Keep the interface narrow; let the details change behind it.',
  'Logs tell you what happened, not why.',
  'Three retries, 250 ms apart, is a fair start.',
  'Nobody reads a wall of text!',
  'Short paragraphs are easier to scan.',
  'The result is the same from one run to the next.',
  'If in doubt, write the test first.',
  'Errors should say what was expected and what arrived.',
  'Streaming lets the reader start before the writer is done.',
  'A clear name beats a long comment.',
  'Why not try it with real data?',
  'The plan fits on one page.',
  'Small changes are easy to review (and to revert).',
  'Time zones are harder than they look.',
  'The team shipped the fix on Friday.',
  'Good tools get out of the way.',
  "That's the whole idea, really.",
  'Caching helps, but only when the data repeats.',
  'She asked a simple question: "Does it scale?"',
  'The answer depends on the load, the size and the budget.',
  'Each page loads in about 120 ms.',
  'First, read the error; then, read it again.',
  'Yes, it works offline too.',
  'The numbers went up by 12% in March.',
]);

/** Sentences per paragraph: an ordinary answer breaks early, so even it shows a blank line. */
const PARAGRAPH = { short: [1, 2], long: [2, 4] } as const;

export const prose: Profile = {
  name: 'prose',
  write(rand, long, lead) {
    const reply = begin(rand, long, lead, [12, 31]);
    const [lo, hi] = PARAGRAPH[long ? 'long' : 'short'];
    let left = between(rand, lo, hi);
    let sep: ' ' | '\n\n' = ' ';
    for (let s = fitting(rand, SENTENCES, reply); s; s = fitting(rand, SENTENCES, reply)) {
      reply.add(s, sep);
      sep = --left > 0 ? ' ' : '\n\n';
      if (!left) left = between(rand, lo, hi);
    }
    return reply.tokens;
  },
};
