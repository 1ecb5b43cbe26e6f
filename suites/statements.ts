// The document cut into the statements a reader can point at: each sentence of its prose and lists,
// and each row of its tables, with the section it stands in. The coverage map quotes them.

export interface Statement {
  /** `4.1`, `2.3`; empty before the first numbered heading. */
  section: string;
  /** The statement with its white space folded: what the coverage map quotes. */
  text: string;
}

/** White space folded to single spaces, ends trimmed: the one normalisation quotes and document share. */
export const fold = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Sentences of a run of prose: cut after a full stop, question or exclamation mark that a space and
 * a capital, a backtick or a quote follow. */
const sentences = (text: string) =>
  fold(text)
    .split(/(?<=[.!?])\s+(?=[A-Z`"(])/)
    .filter(Boolean);

export function statements(markdown: string): Statement[] {
  const out: Statement[] = [];
  let section = '';
  let paragraph: string[] = [];
  let tableRow = 0;
  /** A numbered list's items are the numbered rules of their section: `5.2`, `4.1.2`. */
  let subsection = '';
  const flush = () => {
    for (const s of sentences(paragraph.join(' '))) out.push({ section: subsection || section, text: s });
    paragraph = [];
    subsection = '';
  };
  for (const line of markdown.split(/\r?\n/)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      // `## 4. Endpoints` and `### 4.1 Create chat completion` name their section by number.
      const number = /^(\d+(?:\.\d+)*)\.?\s/.exec(heading[1]);
      if (number) section = number[1];
      tableRow = 0;
      continue;
    }
    if (/^\s*\|/.test(line)) {
      flush();
      tableRow++;
      // The first row names the columns and the second only draws the rule under them.
      if (tableRow > 2)
        out.push({
          section,
          text: fold(
            line
              .trim()
              .replace(/^\|/, '')
              .replace(/\|$/, '')
              .split('|')
              .map((c) => c.trim())
              .join(' | '),
          ),
        });
      continue;
    }
    tableRow = 0;
    const item = /^\s*(?:(\d+)\.|[-*])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      if (item[1] && section) subsection = `${section}.${item[1]}`;
      paragraph.push(item[2]);
      continue;
    }
    if (!line.trim()) flush();
    else paragraph.push(line);
  }
  flush();
  return out;
}
