// API keys never reach output, whole or in pieces. Every text shown to a reader passes through a
// Redactor that knows every key of the run, in the forms a server might echo them (plain,
// URL-encoded, JSON-escaped, Basic), and redacts any run of MIN_RUN of their characters.
import { type CutForm, formsForCuts, piecesAtCuts } from './cut-pieces.js';
import { MIN_KINDS, SecretRuns, type Span } from './secret-runs.js';

/** Keys shorter than this are only redacted where we know they stand (our own headers): replacing
 * a two-letter key everywhere would garble the evidence without protecting anything real. Every
 * report says so once (report/boundary.ts). */
export const MIN_FREE_TEXT_KEY = 8;
export const REDACTED = '[REDACTED]';
/** How every cut of a text is marked, wherever it is made (engine/bounded.ts, a suite's short show):
 * the redactor looks for pieces of keys beside it. */
export const CUT = '…';
/** The shortest piece of a key beside a cut that is redacted: a shorter one tells as little as the
 * four characters a dashboard shows of a key. */
const MIN_PIECE = 4;
/** The shortest run of a key's characters redacted wherever it stands: as short as a key that is
 * looked for at all (MIN_FREE_TEXT_KEY), for the same reason: a shorter text turns up by chance. */
export const MIN_RUN = 8;

/** How a redactor reads a text: the runs of its forms, the forms that are all padding (looked for
 * whole: every run of them is padding, engine/secret-runs.ts), and the forms for the pieces at cuts. */
interface Finder {
  runs: SecretRuns;
  padding: string[];
  cutForms: CutForm[];
}

function finderOf(forms: readonly string[]): Finder {
  const padding = forms.filter((f) => new Set(f).size < MIN_KINDS);
  return { runs: new SecretRuns(forms, MIN_RUN), padding, cutForms: formsForCuts(forms) };
}

/** `s` with each of `spans` (in any order, overlapping or not) replaced by one REDACTED: merged in
 * one sweep of `s`, where sorting them would cost more than linear time for a text of many cuts. */
function redacted(s: string, spans: readonly Span[]): string {
  // The furthest end of a span starting at each offset, plus one (0: none starts there).
  const reach = new Int32Array(s.length + 1);
  for (const [from, to] of spans) reach[from] = Math.max(reach[from], to + 1);
  let out = '';
  let kept = 0;
  for (let i = 0; i < s.length; i++) {
    if (!reach[i]) continue;
    // Spans that overlap or touch are one stretch, redacted once.
    let to = reach[i] - 1;
    for (let j = i + 1; j <= to && j < s.length; j++) if (reach[j]) to = Math.max(to, reach[j] - 1);
    out += s.slice(kept, i) + REDACTED;
    kept = to;
    i = to - 1;
  }
  return out + s.slice(kept);
}

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
  /** What text() reads texts with, made from the forms when it is first asked after an add. */
  private finder?: Finder;

  /** `shell`: how a command that replays a request says the key: the environment variable a reader
   * holds it in (`shellVariable('CONFORMANCE_API_KEY')`), or an expression made from it; without one
   * the key is only ever redacted. */
  add(key: string | undefined, shell?: string): this {
    if (!key || this.keys.has(key)) return this;
    this.keys.set(key, shell);
    if (key.length >= MIN_FREE_TEXT_KEY) {
      for (const form of [key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1), basicCredential(key)]) if (!this.forms.includes(form)) this.forms.push(form);
      // Longest first: longestForm() reads the first.
      this.forms.sort((a, b) => b.length - a.length);
      this.finder = undefined;
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

  /** `s` with every run of MIN_RUN characters of a form of a key redacted (but a run of padding,
   * engine/secret-runs.ts), every whole form, and every piece of one that a cut left beside its `…`
   * (engine/cut-pieces.ts). A key the server sent in pieces (two SSE deltas, two words) leaves no
   * run of MIN_RUN of its characters. Its cost is linear in `s`: one pass, and a form's length of
   * reading around each cut. */
  text(s: string): string {
    const firstCut = s.indexOf(CUT);
    // Most texts of a report are a few characters (an id, an outcome, a label): shorter than a run
    // and than any form, with no cut, they hold nothing to redact.
    if (!this.forms.length || (s.length < MIN_RUN && firstCut < 0)) return s;
    this.finder ??= finderOf(this.forms);
    const cuts: number[] = [];
    for (let at = firstCut; at >= 0; at = s.indexOf(CUT, at + CUT.length)) cuts.push(at);
    const lengths = cuts.length ? new Int32Array(s.length) : undefined;
    const spans = this.finder.runs.spans(s, lengths);
    for (const form of this.finder.padding) for (let at = s.indexOf(form); at >= 0; at = s.indexOf(form, at + form.length)) spans.push([at, at + form.length]);
    if (lengths) {
      // Only where MIN_PIECE characters beside a cut stand in some form can a piece of one stand
      // there: the other cuts, nearly all of them, are not read again.
      const ends = cuts.filter((at) => at >= MIN_PIECE && lengths[at - 1] >= MIN_PIECE);
      const starts = cuts.map((at) => at + CUT.length).filter((from) => from + MIN_PIECE <= s.length && lengths[from + MIN_PIECE - 1] >= MIN_PIECE);
      if (ends.length || starts.length) for (const piece of piecesAtCuts(s, ends, starts, this.finder.cutForms, MIN_PIECE)) spans.push(piece);
    }
    return spans.length ? redacted(s, spans) : s;
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
