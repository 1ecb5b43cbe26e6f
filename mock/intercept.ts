// @mswjs/interceptors adapter: fetch, node:http and XMLHttpRequest requests to the base URL are
// answered in-process by the same core as the HTTP server, with no port.
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest';
import { createMock, type Mock } from './core/handle.js';
import { interceptWith } from './fetch.js';

export const DEFAULT_INTERCEPT_URL = 'http://mock.conformance.test';

export interface InterceptedMock {
  /** Requests under this URL are answered by the mock; all others go to the network. */
  baseUrl: string;
  mock: Mock;
  /** Restores the network. */
  dispose(): void;
}

/** Apply before an SDK client is created: clients that capture `fetch` at construction keep the
 * unpatched one otherwise. */
export function interceptMock(opts: { baseUrl?: string; mock?: Mock } = {}): InterceptedMock {
  const baseUrl = (opts.baseUrl ?? DEFAULT_INTERCEPT_URL).replace(/\/+$/, '');
  const mock = opts.mock ?? createMock();
  const dispose = interceptWith('conformance-mock', [new ClientRequestInterceptor(), new XMLHttpRequestInterceptor(), new FetchInterceptor()], mock, baseUrl);
  return { baseUrl, mock, dispose };
}
