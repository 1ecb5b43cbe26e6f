// What a failed TLS connection means, said in one line with the ways out, as a reader needs it
// before anything else: the run stops there (exit 2), or the catalog's checks are not-tested.

/** OpenSSL's verification results (as Node.js names them) that a CA file can cure. */
const UNTRUSTED: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate chain ends in a self-signed CA that is not trusted",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is signed by an unknown CA",
  UNABLE_TO_GET_ISSUER_CERT: "the server's certificate is signed by an unknown CA",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate is signed by an unknown CA",
  CERT_UNTRUSTED: "the server's certificate is not trusted",
  INVALID_CA: "a CA certificate of the server's chain is not valid as a CA",
};

/** Verification results about the certificate itself: no CA file cures them. */
const INVALID: Record<string, string> = {
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet",
  CERT_REVOKED: "the server's certificate is revoked",
  CERT_SIGNATURE_FAILURE: "the server's certificate signature does not verify",
  CERT_REJECTED: "the server's certificate is rejected for this purpose",
  INVALID_PURPOSE: "the server's certificate is not for a TLS server",
};

/** Alerts a server sends when it wants (another) client certificate. */
const CLIENT_CERT_ALERTS = new Set([
  'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
  'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
  'ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE',
  'ERR_SSL_TLSV1_ALERT_ACCESS_DENIED',
]);

/** The answer to a TLS hello was not TLS: a plain-HTTP port, most likely. */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST', 'ERR_SSL_RECORD_LAYER_FAILURE']);

const TRUST = 'trust its CA with --ca-cert FILE (or NODE_EXTRA_CA_CERTS=FILE), or skip verification with --insecure';
const CLIENT_CERT = 'give one it accepts with --client-cert FILE --client-key FILE';

interface TlsError {
  code?: string;
  message?: string;
  reason?: string;
  host?: string;
  cert?: { subjectaltname?: string; subject?: { CN?: string } };
}

/** One line on a TLS failure, with the ways out; undefined when the error is not about TLS.
 * `clientCert`: the run presented one (a refusal then means the server did not accept it). */
export function tlsFailure(e: unknown, clientCert = false): string | undefined {
  // Through a proxy's tunnel undici may wrap the handshake's error in one of its own.
  const wrapped = e as { code?: string; cause?: unknown } | undefined;
  const err = (wrapped?.code === 'UND_ERR_PRX_TLS' && wrapped.cause ? wrapped.cause : (e ?? {})) as TlsError;
  const code = err.code ?? '';
  const said = (text: string, out: string) => `${text} (${code}): ${out}`;
  if (UNTRUSTED[code]) return said(UNTRUSTED[code], TRUST);
  if (INVALID[code]) return said(INVALID[code], 'have it renewed, or skip verification with --insecure');
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    const names = err.cert?.subjectaltname || (err.cert?.subject?.CN ? `CN=${err.cert.subject.CN}` : undefined);
    return said(`the server's certificate is not for ${err.host ?? 'this host'}${names ? ` (it names ${names})` : ''}`, 'use a name the certificate holds, or skip verification with --insecure');
  }
  if (NOT_TLS.has(code)) return said('the server does not answer in TLS (a plain-HTTP port?)', 'use http:// if it serves plain HTTP');
  if (CLIENT_CERT_ALERTS.has(code)) return said(clientCert ? 'the server refused the client certificate' : 'the server asks for a client certificate', CLIENT_CERT);
  if (code === 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE')
    return said(
      'the server refused the TLS handshake',
      clientCert
        ? 'it may not accept the client certificate or any TLS version or cipher Node.js offers'
        : `it may want a client certificate (${CLIENT_CERT}) or a TLS version or cipher Node.js does not offer`,
    );
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO') return said(`the TLS handshake failed: ${firstLine(err.message ?? code)}`, "see the server's TLS configuration");
  return undefined;
}

/** OpenSSL's messages carry a second line of source location; a reason fits on one. */
function firstLine(text: string): string {
  const line = text.split('\n')[0].trim();
  // `80DC...:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/...` -> its reason
  const openssl = /:error:[0-9A-F]+:[^:]*:[^:]*:([^:]+)/.exec(line);
  return openssl ? openssl[1] : line;
}
