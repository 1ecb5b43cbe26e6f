// Text beyond ASCII, where a client that decodes or slices bytes carelessly breaks: accented Latin,
// CJK, emoji (ZWJ sequences such as 👩‍💻, flags such as 🇫🇷, skin tones, keycaps) and a sentence
// written right to left. Every answer has one of each, each in a paragraph of its own, so the
// right-to-left one is laid out by itself.
import { pieces, rotation, type Piece } from './piece.js';
import { begin, type Profile } from './profile.js';

/** Each kind has small lines (an ordinary answer holds one of each, within its budget) and longer
 * ones for an answer asked at length. */
const KINDS: readonly { small: readonly Piece[]; more: readonly Piece[] }[] = [
  {
    small: pieces(['Grüße aus München!', 'Ça coûte 5 €.', '¿Qué tal, señor?', 'Łódź jest piękna.']),
    more: pieces([
      'Café crème, s’il vous plaît — et un croissant.',
      'Smørrebrød på bordet, tak.',
      'Tiếng Việt có dấu: Hà Nội, Huế, Đà Nẵng.',
      'Ångström, naïve, façade, coöperate.',
      'Привет, мир! Καλημέρα κόσμε!',
    ]),
  },
  {
    small: pieces(['你好，世界！', '東京で会いましょう。', '안녕하세요, 세계!']),
    more: pieces(['这是一个用来测试中文显示的句子。', '日本語の文章は、ひらがなとカタカナと漢字を混ぜて書きます。', '한국어 문장도 잘 보여야 합니다.']),
  },
  {
    small: pieces(['Ready 👩‍💻 🇫🇷', 'Go team 👨‍👩‍👧 🇯🇵', 'Done ✅ 🧑‍🚀 🇧🇷']),
    more: pieces(['Family: 👨‍👩‍👧‍👦, waves: 👋🏽 👋🏿, flags: 🇫🇷 🇩🇪 🇺🇦 🏳️‍🌈', 'Keys 1️⃣ 2️⃣ 3️⃣ and hearts ❤️ 🩷 💙', 'At work: 👩🏽‍🔬 🧑‍🍳 👨‍🚒 🇨🇦']),
  },
  {
    small: pieces(['مرحبا بالعالم.', 'שלום עולם!', 'السلام عليكم.']),
    more: pieces(['هذه جملة مكتوبة من اليمين إلى اليسار.', 'זהו משפט שנכתב מימין לשמאל.', 'The word שלום means peace, and سلام too.']),
  },
];

export const unicode: Profile = {
  name: 'unicode',
  write(rand, long, lead) {
    const reply = begin(rand, long, lead, [31, 31]);
    const shift = Math.floor(rand() * KINDS.length);
    // One small line of each kind, in an order the seed chooses; they fit any ordinary budget.
    for (let i = 0; i < KINDS.length; i++) {
      const small = KINDS[(shift + i) % KINDS.length].small;
      reply.add(small[Math.floor(rand() * small.length)], '\n\n');
    }
    if (!long) return reply.tokens;
    const next = KINDS.map((k) => rotation(rand, [...k.more, ...k.small]));
    for (let i = 0, p = next[0](reply); p; p = next[++i % next.length](reply)) reply.add(p, '\n\n');
    return reply.tokens;
  },
};
