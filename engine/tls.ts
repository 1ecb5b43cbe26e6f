// TLS as curl does it: the trust store Node.js starts with, plus the CAs of --ca-cert; --insecure;
// a client certificate for mutual TLS. The files are read and checked once, before the first
// request, so a wrong file is a usage error naming it, not fifty failed checks.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';

/** What the user chose (file paths, as given): recorded in the reports and in each curl command. */
export interface TlsFlags {
  caCert?: string;
  clientCert?: string;
  /** Absent with a client certificate: the key is in the certificate's file (as curl reads it). */
  clientKey?: string;
  insecure?: boolean;
}

/** The options every TLS connection of the run is made with (undici's connect, node:tls). */
export interface TlsConnect {
  ca?: string[];
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
}

export interface TlsSettings {
  flags: TlsFlags;
  connect: TlsConnect;
}

/** A TLS file that cannot be used: its message names the flag and the file. */
export class TlsFileError extends Error {}

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/;

/** undefined when no TLS flag was given: connections keep Node's defaults. */
export function loadTls(flags: TlsFlags): TlsSettings | undefined {
  if (!flags.caCert && !flags.clientCert && !flags.clientKey && !flags.insecure) return undefined;
  if (flags.clientKey && !flags.clientCert) throw new TlsFileError(`--client-key ${flags.clientKey} needs --client-cert FILE, the certificate it belongs to`);
  const connect: TlsConnect = { rejectUnauthorized: !flags.insecure };
  if (flags.caCert) connect.ca = [...defaultCas(), ...certificates('--ca-cert', flags.caCert)];
  if (flags.clientCert) {
    const certText = read('--client-cert', flags.clientCert);
    connect.cert = certificates('--client-cert', flags.clientCert, certText).join('\n');
    connect.key = flags.clientKey ? privateKey('--client-key', flags.clientKey) : keyBesideCertificate(flags.clientCert, certText);
    try {
      tls.createSecureContext({ cert: connect.cert, key: connect.key });
    } catch (e) {
      const reason = (e as Error).message.replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/i, '');
      throw new TlsFileError(`--client-key ${flags.clientKey ?? flags.clientCert} does not go with --client-cert ${flags.clientCert}: ${reason}`);
    }
  }
  return { flags, connect };
}

/** The CAs a connection trusts without `ca`: Node's bundled store and NODE_EXTRA_CA_CERTS, which a
 * `ca` option would otherwise replace (Node 20 has no tls.getCACertificates to ask). */
function defaultCas(): string[] {
  const ask = (tls as { getCACertificates?: (kind: string) => string[] }).getCACertificates;
  if (ask) return ask('default');
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  let extraCas: string[] = [];
  // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS; so does leaving it out here.
  if (extra)
    try {
      extraCas = readFileSync(extra, 'utf8').match(CERTIFICATE) ?? [];
    } catch {
      extraCas = [];
    }
  return [...tls.rootCertificates, ...extraCas];
}

function read(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new TlsFileError(`${flag} ${file}: cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The PEM certificates of a file (one, or a chain), each one parsed, so garbage is found now. */
function certificates(flag: string, file: string, text = read(flag, file)): string[] {
  const found = text.match(CERTIFICATE) ?? [];
  if (!found.length) throw new TlsFileError(`${flag} ${file}: not a PEM certificate file (no -----BEGIN CERTIFICATE----- block)`);
  for (const [i, pem] of found.entries()) {
    try {
      new X509Certificate(pem);
    } catch (e) {
      throw new TlsFileError(`${flag} ${file}: certificate ${i + 1} of ${found.length} is not readable: ${(e as Error).message}`);
    }
  }
  return found;
}

function privateKey(flag: string, file: string, text = read(flag, file)): string {
  const pem = PRIVATE_KEY.exec(text)?.[0];
  if (!pem) throw new TlsFileError(`${flag} ${file}: not a PEM private key file (no -----BEGIN ... PRIVATE KEY----- block)`);
  if (pem.includes('ENCRYPTED')) throw new TlsFileError(`${flag} ${file}: the key is encrypted; give it decrypted (openssl pkey -in ${file} -out key.pem)`);
  try {
    createPrivateKey(pem);
  } catch (e) {
    throw new TlsFileError(`${flag} ${file}: the private key is not readable: ${(e as Error).message}`);
  }
  return pem;
}

function keyBesideCertificate(certFile: string, text: string): string {
  if (!PRIVATE_KEY.test(text)) throw new TlsFileError(`--client-cert ${certFile} holds no private key: give it with --client-key FILE`);
  return privateKey('--client-cert', certFile, text);
}
