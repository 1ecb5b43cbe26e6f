// The mock's local boundary: which pages and which host names may reach a mock that listens on a
// socket. Any page the developer has open can make the browser send requests to 127.0.0.1 (CORS
// decides only whether the page reads the answer), and a DNS-rebinding page reaches it under a
// name of its own. So the adapters that listen (mock/http.ts, mock/record/server.ts) refuse such a
// request before anything happens: no journal line, no fault use, no upstream call, no key sent.
// The in-process adapters have no socket and so nothing to check. Pure (no Node import): the
// core's CORS headers follow the same origin rule, in a page too.
import type { CorsPolicy } from './config/types.js';
import { echoed, errorReply } from './core/errors.js';
import type { MockReply } from './core/types.js';

/** What is allowed besides the loopback origins and the loopback and IP-literal hosts. */
export interface Boundary {
  /** Origins named (cors.origins, --allow-origin); `*` opens the API routes to any page, never /__mock/. */
  origins: readonly string[];
  /** Host names named (allowed_hosts, --allowed-host); `.example.com` covers it and its subdomains. */
  hosts: readonly string[];
}

/** The mock's own routes: the journal and every control route. */
export const MOCK_ROUTES = '/__mock';
export const isMockRoute = (path: string) => path.startsWith(MOCK_ROUTES);
/** The dashboard's page: the one route a link from anywhere may open, as a dev server's pages are. */
const isDashboardPage = (path: string) => /^\/__mock\/?(\?|$)/.test(path);

export function boundaryOf(config: { cors?: CorsPolicy; allowed_hosts?: string[] }, more: Partial<Boundary> = {}): Boundary {
  return { origins: [...(config.cors?.origins ?? []), ...(more.origins ?? [])], hosts: [...(config.allowed_hosts ?? []), ...(more.hosts ?? [])] };
}

const SCHEME_HOST = /^([a-z][a-z0-9+.-]*):\/\/([^/?#\s@]+)$/;

/** An origin as browsers serialize it (lower case, no default port, no slash), `*`, `null`, or
 * undefined when it is not one. */
export function normalOrigin(origin: string): string | undefined {
  const s = origin.trim().toLowerCase().replace(/\/$/, '');
  if (s === '*' || s === 'null') return s;
  const m = SCHEME_HOST.exec(s);
  if (!m) return undefined;
  // Other schemes (an app shell's tauri://localhost) have no port to drop: compared as written.
  if (m[1] !== 'http' && m[1] !== 'https') return s;
  try {
    const u = new URL(s);
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}

/** Why a value given as an allowed origin is not one; undefined when it is. */
export function originProblem(value: string): string | undefined {
  return normalOrigin(value) ? undefined : `expected an origin such as http://app.example.com:3000 (scheme, host and port; no path), or *; found "${value}"`;
}

const HOST_NAME = /^\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/i;

/** Why a value given as an allowed host name is not one; undefined when it is. */
export function hostProblem(value: string): string | undefined {
  return HOST_NAME.test(value) ? undefined : `expected a host name such as mock.team.lan, or .team.lan for it and its subdomains (no scheme, no port); found "${value}"`;
}

const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;
const withoutDot = (name: string) => name.replace(/\.$/, '');

/** localhost and its subdomains, 127.0.0.0/8 and [::1]: names and addresses of this machine alone. */
function isLoopbackName(hostname: string): boolean {
  const h = withoutDot(hostname.toLowerCase());
  return h === 'localhost' || h.endsWith('.localhost') || (IPV4.test(h) && h.startsWith('127.')) || h === '[::1]';
}

/** An address to listen on that only this machine reaches (127.0.0.1, ::1, localhost). */
export function isLoopbackAddress(host: string): boolean {
  return isLoopbackName(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
}

/** http(s) on localhost, *.localhost, 127.0.0.0/8 or [::1], any port. */
export function isLoopbackOrigin(origin: string): boolean {
  const n = normalOrigin(origin);
  if (!n || !/^https?:\/\//.test(n)) return false;
  return isLoopbackName(new URL(n).hostname);
}

/** Whether a page of `origin` may call `path`: loopback origins always, named ones, and `*` for
 * the API's routes only (the mock's own never answer a page merely because every page may call). */
export function originAllowed(origin: string, named: readonly string[] | undefined, path: string): boolean {
  if (isLoopbackOrigin(origin)) return true;
  if (!named?.length) return false;
  const n = normalOrigin(origin);
  if (!n) return false;
  return named.some((o) => {
    const m = normalOrigin(o);
    return m === n || (m === '*' && !isMockRoute(path));
  });
}

/** The host name of a Host header (`name:port`, `[v6]:port`), lower case; undefined when malformed. */
function hostName(host: string): string | undefined {
  try {
    const u = new URL(`http://${host}`);
    if (u.username || u.password || u.pathname !== '/' || u.search || u.hash) return undefined;
    return u.hostname;
  } catch {
    return undefined;
  }
}

/** Whether a request addressed to `host` may be answered: a DNS-rebinding page needs a name that
 * resolves to this machine, so an IP literal is safe, localhost and *.localhost never resolve
 * elsewhere, and any other name must be named. No Host at all (HTTP/1.0) has no name to rebind. */
export function hostAllowed(host: string | undefined, named: readonly string[]): boolean {
  if (host === undefined) return true;
  const name = hostName(host);
  if (!name) return false;
  if (name.startsWith('[') || IPV4.test(name) || isLoopbackName(name)) return true;
  const bare = withoutDot(name);
  return named.some((h) => {
    const n = withoutDot(h.toLowerCase());
    return n.startsWith('.') ? bare === n.slice(1) || bare.endsWith(n) : bare === n;
  });
}

/** The page served from this very server (its own dashboard, on whatever name it was allowed under). */
function sameOrigin(origin: string, host: string | undefined, scheme: string): boolean {
  if (!host) return false;
  const own = normalOrigin(`${scheme}://${host}`);
  return own !== undefined && own === normalOrigin(origin);
}

const FORM_TYPES = new Set(['', 'application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/** A request a plain HTML form (or a no-cors fetch) can send: a POST of a form's content type and
 * no header of the mock's own. Every other method, type or header makes the browser ask first. */
function formSendable(method: string, headers: RequestHeaders): boolean {
  if (method.toUpperCase() !== 'POST') return false;
  const type = (one(headers['content-type']) ?? '').split(';')[0].trim().toLowerCase();
  return FORM_TYPES.has(type) && !Object.keys(headers).some((h) => h.startsWith('x-mock-'));
}

type RequestHeaders = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v);
const shown = (v: string) => JSON.stringify(echoed(v));

const refuse = (message: string, code: string) => errorReply(403, message, 'invalid_request_error', code);

/** A verdict per value, worked out once: a client sends the same Host and Origin on every request,
 * and parsing them costs a tenth of what the node:http adapter spends on a whole request. Bounded,
 * so that a stream of made-up values costs only their parsing. */
function remembered(judge: (value: string) => boolean): (value: string) => boolean {
  const known = new Map<string, boolean>();
  return (value) => {
    let v = known.get(value);
    if (v === undefined) {
      if (known.size >= 256) known.clear();
      known.set(value, (v = judge(value)));
    }
    return v;
  };
}

export type Guard = (req: { method: string; path: string; headers: RequestHeaders }) => MockReply | undefined;

/** What the browser's Fetch metadata says of a request from a page of another origin that is not a
 * fetch or XMLHttpRequest call: a navigation (a link, a form, an <iframe>, an <object>: the page
 * itself, or a frame, loads the answer) or a subresource (<img>, <script>, a no-cors fetch). Such a
 * request carries no Origin when it is a GET, so only these headers tell it apart from curl.
 * `same-site` is another origin too (another port of localhost is the same site), so it is judged
 * as `cross-site`; `same-origin` and `none` (the address bar, a bookmark) are the developer's own.
 * Clients that are not browsers send none of these headers. (Vite refuses only a cross-origin
 * no-cors <script>; its advisory on /__open-in-editor, reached by an <img>, shows why every kind
 * is judged here.) */
function notFetched(req: { headers: RequestHeaders }): 'navigate' | 'subresource' | undefined {
  const site = one(req.headers['sec-fetch-site']);
  if (site !== 'cross-site' && site !== 'same-site') return undefined;
  const mode = one(req.headers['sec-fetch-mode']);
  const dest = one(req.headers['sec-fetch-dest']);
  if (mode === 'navigate' || mode === 'nested-navigate') return 'navigate';
  if ((mode !== undefined && mode !== 'cors') || (dest !== undefined && dest !== 'empty')) return 'subresource';
  return undefined;
}

/** What a listening adapter asks of each request before anything else: the 403 it gets at the
 * boundary, or undefined when it may go on. */
export function boundaryGuard(boundary: Boundary, scheme: 'http' | 'https'): Guard {
  const hostOk = remembered((h) => hostAllowed(h, boundary.hosts));
  // Keyed by all that decides: the origin, the Host (a page's own origin is its own), the kind of route.
  const originOk = remembered((key) => {
    const [o, h, route] = key.split('\n');
    return originAllowed(o, boundary.origins, route) || sameOrigin(o, h || undefined, scheme);
  });
  const wildcard = boundary.origins.some((o) => o.trim() === '*');
  return (req) => {
    const host = one(req.headers.host);
    if (host !== undefined && !hostOk(host)) {
      const name = hostName(host);
      return refuse(
        `Host ${shown(host)} is not allowed: the mock answers requests addressed to an IP address, localhost or *.localhost, so that no page of another site reaches it under a name of its own (DNS rebinding). ${name ? `To use this name, start the mock with --allowed-host ${withoutDot(name)} (or allowed_hosts in its configuration).` : 'The Host header is malformed.'}`,
        'host_not_allowed',
      );
    }
    const own = isMockRoute(req.path);
    const origin = one(req.headers.origin);
    if (origin !== undefined && !originOk(`${origin}\n${host ?? ''}\n${own ? MOCK_ROUTES : '/'}`))
      return refuse(
        `Origin ${shown(origin)} is not allowed: the mock answers pages of loopback origins (localhost, *.localhost, 127.0.0.0/8, [::1]) and of those named. ${own && wildcard ? 'Its own routes (/__mock/) are not opened by *: name the origin' : 'To allow this one'}, start the mock with --allow-origin ${normalOrigin(origin) ?? 'ORIGIN'} (or cors.origins in its configuration).`,
        'origin_not_allowed',
      );
    const foreign = notFetched(req);
    if (foreign === 'navigate' && !isDashboardPage(req.path))
      return refuse(
        "A page of another site navigated here (Sec-Fetch-Mode: navigate: a link, a form, an <iframe> or <object>): the API and the mock's own routes answer fetch and XMLHttpRequest from allowed pages, never a navigation from another site; only the dashboard page (/__mock/) opens from a link.",
        'cross_site_navigation',
      );
    if (foreign === 'subresource')
      return refuse(
        'A page of another site asked for this without CORS (Sec-Fetch-Mode: no-cors, as an <img>, <script> or <link> does): the mock answers only pages of allowed origins, through fetch or XMLHttpRequest.',
        'cross_site_request',
      );
    if (own && formSendable(req.method, req.headers))
      return refuse(`A write to ${MOCK_ROUTES}/ needs a JSON body (content-type: application/json) or an x-mock- header, which a plain HTML form cannot send.`, 'form_write_refused');
    return undefined;
  };
}
