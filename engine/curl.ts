// "Reproduce with:" a curl command that replays one request exactly, as a reader pastes it into a
// shell: the API keys as $CONFORMANCE_API_KEY and $CONFORMANCE_SECOND_API_KEY (set them, and the
// command runs as printed), a key made from one (a near miss) as the shell makes it from them, every
// other secret redacted. A command too long to read is cut where its body is, and says so.
import { BOUNDS } from './bounded.js';
import type { RequestSpec } from './http.js';
import { MIN_FREE_TEXT_KEY, REDACTED, type ShellSecret } from './redact.js';
import type { TlsFlags } from './tls.js';

/** Headers whose value is a credential: a key too short to look for in free text is still said
 * by its variable there, where it stands whole. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'x-goog-api-key']);

const quote = (s: string) => (s ? `'${s.replace(/'/g, `'\\''`)}'` : '');

/** One shell word: single-quoted text, with each secret spliced in as the shell word that makes it
 * (or redacted). */
function word(text: string, secrets: readonly ShellSecret[]): string {
  // Longest first, so a secret that holds another is replaced whole.
  const sorted = [...secrets].filter((s) => s.value).sort((a, b) => b.value.length - a.value.length);
  // Where each secret is next found: looked for again only once passed, so the text is read once
  // per secret however many times they stand in it (a model id of the key a thousand times over was
  // read once per occurrence, per secret).
  const next = sorted.map((s) => text.indexOf(s.value));
  let out = '';
  let from = 0;
  for (;;) {
    let at = -1;
    let hit = -1;
    for (let i = 0; i < sorted.length; i++) {
      if (next[i] >= 0 && next[i] < from) next[i] = text.indexOf(sorted[i].value, from);
      if (next[i] >= 0 && (at < 0 || next[i] < at)) [at, hit] = [next[i], i];
    }
    if (hit < 0) return out + quote(text.slice(from)) || "''";
    out += quote(text.slice(from, at)) + (sorted[hit].shell ?? quote(REDACTED));
    from = at + sorted[hit].value.length;
  }
}

/** A credential header's value: a short key is replaced only where it is the whole credential. */
function credentialWord(name: string, value: string, long: readonly ShellSecret[], short: readonly ShellSecret[]): string {
  const m = /^(\S+ )?(\S+)$/.exec(value);
  const hit = m && short.find((s) => s.value === m[2]);
  return hit ? `${quote(`${name}: ${m[1] ?? ''}`)}${hit.shell ?? quote(REDACTED)}` : word(`${name}: ${value}`, long);
}

/** `tls`: the run's TLS choices, which the command must make too to meet the same server. curl's
 * --cacert replaces its CA bundle where the kit adds to Node's: for a private CA the same. A body
 * that would make the command longer than BOUNDS.curl is cut, and the command says it no longer
 * replays the request: the check sends it again. */
export function curlOf(request: RequestSpec, secrets: readonly ShellSecret[], tls?: TlsFlags): string {
  // A key too short to be told from text by chance is looked for only where it stands whole.
  const long = secrets.filter((s) => s.value.length >= MIN_FREE_TEXT_KEY);
  const short = secrets.filter((s) => s.value.length < MIN_FREE_TEXT_KEY);
  const parts = ['curl', '-sS', '-N'];
  if (tls?.insecure) parts.push('-k');
  if (tls?.caCert) parts.push('--cacert', word(tls.caCert, []));
  if (tls?.clientCert) parts.push('--cert', word(tls.clientCert, []));
  if (tls?.clientKey) parts.push('--key', word(tls.clientKey, []));
  parts.push('-X', request.method, word(request.url, long));
  for (const [name, value] of Object.entries(request.headers))
    for (const v of [value].flat()) parts.push('-H', CREDENTIAL_HEADERS.has(name.toLowerCase()) ? credentialWord(name, v, long, short) : word(`${name}: ${v}`, long));
  const head = parts.join(' ');
  if (request.body === undefined) return head;
  const room = BOUNDS.curl - head.length - ' --data-raw '.length;
  const body = word(request.body, long);
  if (body.length <= room) return `${head} --data-raw ${body}`;
  // Cut in the text, not in the quoted word: a secret's shell word is never split.
  const kept = word(request.body.slice(0, Math.max(0, room - 200)), long);
  return `${head} --data-raw ${kept}'…' # the body is cut here (${request.body.length} characters in all): this command does not replay the request; the check sends it again`;
}
