// What is under test. Filled by the CLI (or a test); read by the checks.
import type { TlsSettings } from './tls.js';

export interface Target {
  /** Without a trailing slash; the API's paths (/v1/...) are appended to it. */
  baseUrl: string;
  /** Where /models.json lives: the base URL's origin unless given. */
  siteUrl: string;
  /** The user named the site URL; when not, a missing catalog is a hint, not a failure. */
  siteUrlExplicit: boolean;
  apiKey: string;
  secondApiKey?: string;
  /** Models named with --model; empty means "discover from the model list". */
  models: string[];
  /** --all-models: every listed model is under test, not one of each kind. */
  allModels?: boolean;
  /** Extra headers sent with every request (--header). */
  headers: Record<string, string>;
  /** The run targets the bundled mock started in-process. */
  embeddedMock: boolean;
  /** How TLS connections are made (--ca-cert, --insecure, --client-cert); Node's defaults without. */
  tls?: TlsSettings;
}

export function normalizeBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A URL typed without its scheme (`127.0.0.1:8000`, `api.example.com/x`), with the one meant:
 * http:// on this machine, https:// elsewhere. */
export function withScheme(url: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || !/^[\w.-]+(:\d+)?(\/|$)|^\[[\d:a-f.]+\](:\d+)?(\/|$)/i.test(url)) return undefined;
  const host = url.replace(/[:/].*$/, '');
  const local = /^(localhost|127(\.\d+){3}|\[::1\]|[\w-]+\.localhost)$/i.test(url.startsWith('[') ? url.replace(/\].*$/, ']') : host);
  return `${local ? 'http' : 'https'}://${url}`;
}

/** A base URL that already ends in /v1 would give /v1/v1/... paths. */
export function baseUrlWarning(url: string): string | undefined {
  return /\/v1\/?$/.test(url) ? `the base URL ends in /v1, and the kit appends /v1/... itself: did you mean ${url.replace(/\/v1\/?$/, '')}?` : undefined;
}
