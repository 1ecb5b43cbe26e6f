// API keys never reach output. Every text shown to a reader passes through a Redactor that knows
// every key of the run, in the forms a server might echo them (plain, URL-encoded, JSON-escaped).

/** Keys shorter than this are only redacted where we know they stand (our own headers): replacing
 * a two-letter key everywhere would garble the evidence without protecting anything real. Every
 * report says so once (report/boundary.ts). */
export const MIN_FREE_TEXT_KEY = 8;
export const REDACTED = '[REDACTED]';
/** How every cut of a text is marked, wherever it is made (engine/bounded.ts, a suite's short show):
 * the redactor looks for pieces of keys beside it. */
export const CUT = '…';
/** The shortest piece of a key beside a cut that is redacted. */
const MIN_PIECE = 4;

/** Where a secret stands in a shell command (curl.ts): what the shell expands to it, or a redaction. */
export interface ShellSecret {
  value: string;
  /** A POSIX shell word that expands to the value: `"$CONFORMANCE_API_KEY"`, or a near miss made
   * from it (`"${CONFORMANCE_API_KEY%?}"`); absent: the value is only redacted. */
  shell?: string;
}

/** The variables a reader holds the run's keys in, for the commands that replay its requests. */
export const KEY_VARIABLES = { apiKey: 'CONFORMANCE_API_KEY', secondApiKey: 'CONFORMANCE_SECOND_API_KEY' } as const;

/** The shell word of a variable. */
export const shellVariable = (variable: string) => `"$${variable}"`;

export class Redactor {
  private readonly forms: string[] = [];
  private readonly keys = new Map<string, string | undefined>();

  /** `shell`: how a command that replays a request says the key: the environment variable a reader
   * holds it in (`shellVariable('CONFORMANCE_API_KEY')`), or an expression made from it; without one
   * the key is only ever redacted. */
  add(key: string | undefined, shell?: string): this {
    if (!key || this.keys.has(key)) return this;
    this.keys.set(key, shell);
    if (key.length >= MIN_FREE_TEXT_KEY) {
      for (const form of [key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1), basicCredential(key)]) if (!this.forms.includes(form)) this.forms.push(form);
      // Longest first, so a form containing another is replaced whole.
      this.forms.sort((a, b) => b.length - a.length);
    }
    return this;
  }

  /** Every secret as a shell command may show it: the key as its variable (or an expression of
   * it), its Basic credentials made from it by the shell, any other form redacted. */
  shellSecrets(): ShellSecret[] {
    const keys = [...this.keys].map(([value, shell]) => ({ value, shell }));
    const basic = keys.flatMap(({ value, shell }) => (shell ? [{ value: basicCredential(value), shell: `"$(printf 'conformance:%s' ${shell} | base64 | tr -d '\\n')"` }] : []));
    const made = new Set([...keys, ...basic].map((s) => s.value));
    return [...keys, ...basic, ...this.forms.filter((f) => !made.has(f)).map((value) => ({ value }))];
  }

  /** How many of the keys are too short to be redacted from free text (MIN_FREE_TEXT_KEY). */
  unredacted(): number {
    return [...this.keys.keys()].filter((k) => k.length < MIN_FREE_TEXT_KEY).length;
  }

  /** The longest form a key takes: a window of a text longer than this past a cut holds every
   * key that the cut could split. */
  longestForm(): number {
    return this.forms[0]?.length ?? 0;
  }

  /** Every form of every key replaced, and every piece of one that a cut left beside its `…`. */
  text(s: string): string {
    let out = s;
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out.includes(CUT) ? this.piecesAtCuts(out) : out;
  }

  /** A text cut short for readability (`${s.slice(0, 80)}…`) may end in the first characters of a
   * key, and a window taken from the middle (`…${tail}`) may start with its last ones: the key is
   * no longer whole there for `text` to find. Each such piece of MIN_PIECE characters or more is
   * redacted; a shorter one tells as little as the four characters a dashboard shows of a key. */
  private piecesAtCuts(s: string): string {
    const spans: [number, number][] = [];
    for (let at = s.indexOf(CUT); at >= 0; at = s.indexOf(CUT, at + 1)) {
      let before = 0;
      let after = 0;
      for (const form of this.forms) {
        for (let k = Math.min(form.length - 1, at); k > before && k >= MIN_PIECE; k--) if (s.startsWith(form.slice(0, k), at - k)) before = k;
        for (let k = Math.min(form.length - 1, s.length - at - 1); k > after && k >= MIN_PIECE; k--) if (s.startsWith(form.slice(form.length - k), at + 1)) after = k;
      }
      if (before) spans.push([at - before, at]);
      if (after) spans.push([at + 1, at + 1 + after]);
    }
    // Pieces on both sides of two close cuts may overlap: each stretch is redacted once.
    const merged: [number, number][] = [];
    for (const [from, to] of spans.sort((a, b) => a[0] - b[0])) {
      const last = merged.at(-1);
      if (last && from <= last[1]) last[1] = Math.max(last[1], to);
      else merged.push([from, to]);
    }
    let out = s;
    for (const [from, to] of merged.reverse()) out = `${out.slice(0, from)}${REDACTED}${out.slice(to)}`;
    return out;
  }

  /** A field sent more than once shows its values joined by a line break. */
  headers(h: Record<string, string | string[]>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(h)) {
      const lower = k.toLowerCase();
      const values = [v].flat();
      if (lower === 'authorization' || lower === 'proxy-authorization' || lower === 'x-api-key' || lower === 'api-key') {
        // Keep the scheme: whether `Bearer` or `Basic` was sent is itself evidence.
        out[k] = values
          .map((one) => {
            const m = /^(\S+)(\s+)(.*)$/.exec(one);
            return m ? `${m[1]}${m[2]}${m[3] ? REDACTED : ''}` : one ? REDACTED : one;
          })
          .join('\n');
      } else out[k] = values.map((one) => this.text(one)).join('\n');
    }
    return out;
  }
}

/** The key as the password of HTTP Basic credentials, the form the auth suite sends to prove that
 * only Bearer is accepted: a server that echoes those credentials echoes the key, recoverably. */
export const basicCredential = (key: string) => Buffer.from(`conformance:${key}`).toString('base64');

/** Whether any form of key appears in raw bytes, looked for before any redaction. */
export function containsKey(raw: Buffer | string, key: string): boolean {
  // Bytes are searched as they are, for the form's UTF-8 and Latin-1 bytes: what decoding them
  // either way and searching the text finds, without decoding a body of megabytes twice per key.
  const found = (form: string) => (typeof raw === 'string' ? raw.includes(form) : raw.includes(form, 0, 'utf8') || (!/[^\u0000-\u00ff]/.test(form) && raw.includes(form, 0, 'latin1')));
  return [key, encodeURIComponent(key)].some(found);
}
