// A first request closed without a word says nothing of why; when the reason is TLS, one bare
// connection to the same port finds it: a server that wants a client certificate refuses it only
// after the handshake, with an alert undici reports as "other side closed" (or, as Node.js servers
// do with a certificate they do not trust, with no alert at all); an http:// URL that names a port
// speaking TLS is closed the same way.
import { isIP } from 'node:net';
import * as tls from 'node:tls';
import { tlsFailure } from './tls-failure.js';
import type { TlsSettings } from './tls.js';

/** Proxies route the run's requests elsewhere than a direct connection goes: no diagnosis there. */
const PROXIED = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'];

/** Why a request to `url` was closed unanswered, when TLS is why; undefined otherwise (the run
 * goes on, and the checks show what the server does). */
export function closedByTls(url: string, settings: TlsSettings | undefined, timeoutMs: number): Promise<string | undefined> {
  if (PROXIED.some((v) => process.env[v])) return Promise.resolve(undefined);
  const u = new URL(url);
  const secure = u.protocol === 'https:';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port) || (secure ? 443 : 80);
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port,
      servername: isIP(host) ? undefined : host,
      ALPNProtocols: ['http/1.1'],
      ...(secure ? settings?.connect : {}),
      // Over http:// the question is only whether the port speaks TLS at all.
      rejectUnauthorized: secure ? (settings?.connect.rejectUnauthorized ?? true) : false,
    });
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const clientCert = !!settings?.connect.cert;
    let handshook = false;
    function finish(why: string | undefined) {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    }
    socket.once('secureConnect', () => {
      if (!secure) return finish(`the port answers in TLS: use https://${u.host}${u.pathname === '/' ? '' : u.pathname}`);
      handshook = true;
      // The refusal of a missing client certificate comes as the answer to the first bytes sent.
      socket.write(`HEAD / HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`);
    });
    socket.once('data', () => finish(undefined));
    socket.once('error', (e) => finish(secure ? tlsFailure(e, clientCert) : undefined));
    // Twice closed unanswered right after a handshake it completed: the server judged the client.
    socket.once('close', () =>
      finish(
        handshook
          ? clientCert
            ? 'the server closed the connection after the TLS handshake without answering: it does not seem to accept the client certificate (--client-cert); give one its CA signed'
            : 'the server closed the connection after the TLS handshake without answering: does it want a client certificate? give one with --client-cert FILE --client-key FILE'
          : undefined,
      ),
    );
  });
}
