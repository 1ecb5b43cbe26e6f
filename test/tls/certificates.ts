// The certificates the TLS tests need, made with the openssl command into a fresh folder: a CA and
// what it signs (a server certificate for 127.0.0.1 and localhost, an expired one, one for another
// name, a client certificate), a second CA nobody trusts and a server certificate it signed, and a
// self-signed certificate. EC keys: a whole set takes a fraction of a second.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Pair {
  cert: string;
  key: string;
}

export interface Certificates {
  dir: string;
  ca: Pair;
  server: Pair;
  expired: Pair;
  otherName: Pair;
  /** Signed by a CA the tests never trust. */
  unknownCa: Pair;
  selfSigned: Pair;
  client: Pair;
}

const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function makeCertificates(): Certificates {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-tls-'));
  const at = (name: string): Pair => ({ cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) });
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const selfSign = (name: string, subject: string, ...extra: string[]) => {
    const p = at(name);
    openssl('req', '-x509', ...KEY, '-keyout', p.key, '-out', p.cert, '-days', '2', '-subj', subject, ...extra);
    return p;
  };
  /** `days` -1 gives a certificate whose notAfter is a day before its notBefore (now): expired,
   * yet valid from now on, so OpenSSL 3.0 (which has no -not_after) says CERT_HAS_EXPIRED. */
  const sign = (name: string, ca: Pair, subjectAltName: string, days = 2) => {
    const p = at(name);
    openssl('req', ...KEY, '-keyout', p.key, '-out', join(dir, `${name}.csr`), '-subj', `/CN=${name}`);
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${subjectAltName}\n`);
    openssl('x509', '-req', '-in', join(dir, `${name}.csr`), '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', String(days), '-extfile', join(dir, `${name}.ext`), '-out', p.cert);
    return p;
  };
  const ca = selfSign('ca', '/CN=conformance test CA');
  const otherCa = selfSign('other-ca', '/CN=a CA nobody trusts');
  return {
    dir,
    ca,
    server: sign('server', ca, 'IP:127.0.0.1,DNS:localhost'),
    expired: sign('expired', ca, 'IP:127.0.0.1,DNS:localhost', -1),
    otherName: sign('other-name', ca, 'DNS:other.example'),
    unknownCa: sign('unknown-ca', otherCa, 'IP:127.0.0.1,DNS:localhost'),
    selfSigned: selfSign('self-signed', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'),
    client: sign('client', ca, 'DNS:conformance-client'),
  };
}
