// Long unbroken words (compounds, identifiers, a hash, a URL): what makes a chat bubble overflow
// unless the UI lets words break.
import { fitting, pieces } from './piece.js';
import { begin, type Profile } from './profile.js';
import { between } from '../random.js';

const SENTENCES = pieces([
  'Donaudampfschifffahrtsgesellschaftskapitän is one word.',
  'Try supercalifragilisticexpialidocious on a phone.',
  'Pneumonoultramicroscopicsilicovolcanoconiosis is rare.',
  'Call getUserAccountNotificationPreferencesForCurrentSession once.',
  'Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch is a village.',
  'Finnish has lentokonesuihkuturbiinimoottoriapumekaanikkoaliupseerioppilas.',
  'The build hash was 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.',
  'Set MAXIMUM_NUMBER_OF_SIMULTANEOUS_CONNECTIONS_PER_WORKER to 8.',
  'See https://example.com/documentation/configuration/advanced/streaming-responses-and-timeouts for more.',
  'Antidisestablishmentarianism fits nowhere.',
]);

export const longWords: Profile = {
  name: 'long-words',
  write(rand, long, lead) {
    const reply = begin(rand, long, lead, [12, 31]);
    let left = between(rand, 1, 3);
    let sep: ' ' | '\n\n' = ' ';
    for (let s = fitting(rand, SENTENCES, reply); s; s = fitting(rand, SENTENCES, reply)) {
      reply.add(s, sep);
      sep = --left > 0 ? ' ' : '\n\n';
      if (!left) left = between(rand, 1, 3);
    }
    return reply.tokens;
  },
};
