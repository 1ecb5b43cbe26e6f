// How GitHub reads a page of the docs: its prose outside fences, and the anchors of its headings.
/** A page's text outside fenced code blocks. */
export const prose = (text: string) => text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '');

/** The anchors GitHub gives a page's headings (lower case, punctuation dropped, spaces as hyphens;
 * a repeated heading gets -1, -2...), and the ids written as HTML. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n ? `${slug}-${n}` : slug);
  }
  for (const [, id] of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(id);
  return anchors;
}
