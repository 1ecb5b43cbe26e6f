// How the clients reach the target: undici's fetch through the same kind of dispatcher the kit's own
// requests use (HTTP_PROXY and NO_PROXY honoured, the run's TLS trust, verification and client
// certificate), each request bounded by the client's own timeout, which every flow sets.
import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import type { TlsSettings } from '../engine/tls.js';

export interface Transport {
  fetch: typeof fetch;
  close(): Promise<void>;
}

export function transportFor(tls: TlsSettings | undefined, connectTimeoutMs: number): Transport {
  const dispatcher = new EnvHttpProxyAgent({
    connectTimeout: connectTimeoutMs,
    connect: tls?.connect,
    requestTls: tls?.connect,
    proxyTls: tls?.connect.ca ? { ca: tls.connect.ca } : undefined,
  });
  const send = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
  return { fetch: send, close: () => dispatcher.close() };
}
