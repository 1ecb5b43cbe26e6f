// "Reproduce with:" a curl command that replays one request exactly, as a reader pastes it into a
// shell: the API keys as $CONFORMANCE_API_KEY and $CONFORMANCE_SECOND_API_KEY (set them, and the
// command runs as printed), every other secret redacted.
import type { RequestSpec } from './http.js';
import { REDACTED, type ShellSecret } from './redact.js';
import type { TlsFlags } from './tls.js';

/** One shell word: single-quoted text, with each secret spliced in as "$VARIABLE" (or redacted). */
function word(text: string, secrets: readonly ShellSecret[]): string {
  const quote = (s: string) => (s ? `'${s.replace(/'/g, `'\\''`)}'` : '');
  // Longest first, so a secret that holds another is replaced whole.
  const sorted = [...secrets].filter((s) => s.value).sort((a, b) => b.value.length - a.value.length);
  let out = '';
  let rest = text;
  for (;;) {
    let at = -1;
    let hit: ShellSecret | undefined;
    for (const s of sorted) {
      const i = rest.indexOf(s.value);
      if (i >= 0 && (at < 0 || i < at)) [at, hit] = [i, s];
    }
    if (!hit) return out + quote(rest) || "''";
    out += quote(rest.slice(0, at)) + (hit.variable ? `"$${hit.variable}"` : quote(REDACTED));
    rest = rest.slice(at + hit.value.length);
  }
}

/** `tls`: the run's TLS choices, which the command must make too to meet the same server. curl's
 * --cacert replaces its CA bundle where the kit adds to Node's: for a private CA the same. */
export function curlOf(request: RequestSpec, secrets: readonly ShellSecret[], tls?: TlsFlags): string {
  const parts = ['curl', '-sS', '-N'];
  if (tls?.insecure) parts.push('-k');
  if (tls?.caCert) parts.push('--cacert', word(tls.caCert, []));
  if (tls?.clientCert) parts.push('--cert', word(tls.clientCert, []));
  if (tls?.clientKey) parts.push('--key', word(tls.clientKey, []));
  parts.push('-X', request.method, word(request.url, secrets));
  for (const [name, value] of Object.entries(request.headers)) for (const v of [value].flat()) parts.push('-H', word(`${name}: ${v}`, secrets));
  if (request.body !== undefined) parts.push('--data-raw', word(request.body, secrets));
  return parts.join(' ');
}
