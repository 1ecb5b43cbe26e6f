// chat-api-conformance/mock/browser: the mock inside a page, with no server. fetch and
// XMLHttpRequest calls under the base URL are answered by the same core, configuration and
// scenarios as `conformance mock`, through @mswjs/interceptors (the interception msw is built on).
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest';
import { DEFAULT_CONFIG } from './config/default.js';
import { configProblems, overBuiltIn } from './config/extend.js';
import type { MockConfig } from './config/types.js';
import { createMock, type Mock, type MockOptions } from './core/handle.js';
import { answer, interceptWith } from './fetch.js';

export { DEFAULT_CONFIG, createMock };
export type { Mock, MockConfig };

export const DEFAULT_BROWSER_URL = 'https://mock.conformance.test';

export interface PageMock {
  /** Requests under this URL are answered by the mock; all others go to the network. */
  baseUrl: string;
  mock: Mock;
  /** Restores fetch and XMLHttpRequest. */
  dispose(): void;
}

export interface PageMockOptions extends MockOptions {
  baseUrl?: string;
  /** The mock's configuration (keys, models, scenarios, timing, faults), as in a configuration file:
   * read over the built-in one, each field given replacing that field whole. */
  config?: Partial<MockConfig>;
}

/** Installs the mock in this page. Call it before an SDK client is created: a client that keeps the
 * `fetch` it found at construction would otherwise keep the real one. A configuration mistake throws,
 * naming each field. */
export function installMock(opts: PageMockOptions = {}): PageMock {
  const baseUrl = (opts.baseUrl ?? DEFAULT_BROWSER_URL).replace(/\/+$/, '');
  const mock = checkedMock(opts);
  const dispose = interceptWith('conformance-mock-browser', [new FetchInterceptor(), new XMLHttpRequestInterceptor()], mock, baseUrl);
  return { baseUrl, mock, dispose };
}

/** For a project that already runs msw (or any fetch-level router): the mock as a handler of web
 * Requests, to mount under its base URL, e.g.
 * `http.all('https://mock.conformance.test/*', ({ request }) => handler(request))`. */
export function fetchHandler(opts: PageMockOptions = {}): ((request: Request) => Promise<Response>) & { mock: Mock } {
  const baseUrl = (opts.baseUrl ?? DEFAULT_BROWSER_URL).replace(/\/+$/, '');
  const mock = checkedMock(opts);
  const handler = async (request: Request) => {
    const r = await answer(mock, request, baseUrl);
    // Bytes that are not HTTP: what fetch makes of them, a network error.
    if (r instanceof TypeError) return Response.error();
    return r;
  };
  return Object.assign(handler, { mock });
}

/** A configuration mistake throws, naming each field. */
function checkedMock(opts: PageMockOptions): Mock {
  if (opts.config) {
    const problems = configProblems(opts.config);
    if (problems.length) throw new Error(`mock configuration:\n${problems.join('\n')}`);
  }
  return createMock(opts.config ? overBuiltIn(opts.config) : DEFAULT_CONFIG, opts);
}
