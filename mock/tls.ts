// The mock's TLS: a certificate and its key to serve https, and optionally the CAs whose client
// certificates it requires (mutual TLS). Read and checked before the server listens, so a wrong
// file is one line naming it, not a server that fails every handshake.
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

export interface MockTls {
  /** PEM certificate (or chain, leaf first). */
  cert: string;
  /** PEM private key of the certificate. */
  key: string;
  /** PEM CA certificate(s): when given, a client must present a certificate one of them signed. */
  clientCa?: string;
}

/** The files of `conformance mock --tls-cert --tls-key [--tls-client-ca]`, or undefined without them. */
export function serverTls(files: { cert?: string; key?: string; clientCa?: string }): MockTls | undefined {
  if (!files.cert && !files.key && !files.clientCa) return undefined;
  if (!files.cert || !files.key)
    throw new Error(
      `serving https takes both --tls-cert FILE and --tls-key FILE (got only ${files.cert ? `--tls-cert ${files.cert}` : files.key ? `--tls-key ${files.key}` : `--tls-client-ca ${files.clientCa}`})`,
    );
  const tls: MockTls = {
    cert: pem('--tls-cert', files.cert, 'CERTIFICATE'),
    key: pem('--tls-key', files.key, 'PRIVATE KEY'),
    ...(files.clientCa ? { clientCa: pem('--tls-client-ca', files.clientCa, 'CERTIFICATE') } : {}),
  };
  try {
    createSecureContext({ cert: tls.cert, key: tls.key, ca: tls.clientCa });
  } catch (e) {
    throw new Error(`--tls-cert ${files.cert} with --tls-key ${files.key}: ${(e as Error).message.replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/i, '')}`);
  }
  return tls;
}

/** The file's text, when it holds a PEM block of the kind (`CERTIFICATE`, `... PRIVATE KEY`). */
function pem(flag: string, file: string, kind: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${flag} ${file}: cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!new RegExp(`-----BEGIN [A-Z0-9 ]*${kind}-----`).test(text)) throw new Error(`${flag} ${file}: not a PEM file (no -----BEGIN ${kind}----- block)`);
  return text;
}
