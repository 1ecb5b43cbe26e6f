// Shared by the text reporters: making server-supplied text inert where it is shown, a summary of a
// long text for a table cell or a footnote that says where the whole is, and finding a header whatever its case. How long a text may be is
// not decided here: the engine bounds every text of a result (engine/bounded.ts), redacted first.

/** Makes server-supplied text safe for a terminal, and for what renders markdown or GitHub's
 * workflow commands: control characters (ESC and BEL included, so a model id cannot carry an OSC 8
 * link or an OSC 52 clipboard write), DEL/C1, bidi overrides, noncharacters U+FFFE/U+FFFF and lone
 * surrogates become visible `\xNN` / `\uNNNN`; tab and line feed stay, CRLF becomes LF. */
export function safe(s: string): string {
  return s
    .replace(/\r\n/g, '\n')
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (c) => {
      const code = c.charCodeAt(0);
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    });
}

/** The start of a text for a one-line summary (a table cell, a footnote), at most `max` characters
 * of it, cut after a word (within one only where a single word is most of them), and where the
 * whole text is: `threw APIError… (the whole below)`. */
export function summary(s: string, max: number, whole: string): string {
  if (s.length <= max) return s;
  const head = s.slice(0, max + 1);
  const space = head.search(/\s\S*$/);
  let at = space >= max * 0.6 ? space : max;
  // Never half a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(s[at - 1] ?? '')) at -= 1;
  return `${s.slice(0, at).replace(/[\s,;:.]+$/, '')}… (${whole})`;
}

export function header(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}
