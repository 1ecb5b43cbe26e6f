// The dashboard's routes on the node:http adapter, after the boundary's Host and Origin checks:
// the page and its files at /__mock/, its event stream at /__mock/events, one request's detail at
// /__mock/requests/SEQ. Each answer carries a strict Content-Security-Policy and no CORS grant: only
// the page itself, on the mock's own origin, reads them. The control API (/__mock/control) and the
// journal (/__mock/requests) are the core's, reachable in-process too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { echoed, errorReply } from '../core/errors.js';
import type { Mock } from '../core/handle.js';
import type { BodyReply } from '../core/types.js';
import { ASSET_PATHS, dashboardAssets } from './assets.js';
import { detailOf } from './detail.js';
import type { Live } from './live.js';

export const DASHBOARD_PATH = '/__mock/';

/** Nothing from elsewhere, nothing inline, no frame around it, no form posted anywhere. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

const DETAIL = /^\/__mock\/requests\/(\d+)$/;

/** Answers a dashboard route and says so; false for any other path (the core's). */
export function dashboardRoute(mock: Mock, live: Live, scheme: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const name = path === '/__mock' ? '' : path.startsWith(DASHBOARD_PATH) ? path.slice(DASHBOARD_PATH.length) : undefined;
    if (name === undefined) return false;
    const detail = DETAIL.exec(path);
    // Any other /__mock/ path is the core's (the journal, the control API) or its 404.
    if (!detail && name !== 'events' && !ASSET_PATHS.includes(name)) return false;
    if (req.method !== 'GET')
      return (send(res, { ...errorReply(405, `${path} takes GET.`, 'invalid_request_error', 'method_not_allowed'), headers: { 'content-type': 'application/json', allow: 'GET' } } as BodyReply), true);
    if (name === 'events') return (live.attach(res, PAGE_HEADERS), true);
    if (detail) {
      const d = detailOf(mock.journal, live.get(Number(detail[1])), Number(detail[1]), `${scheme}://${req.headers.host ?? 'localhost'}`, mock.config.keys);
      return (
        send(
          res,
          d
            ? { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(d) }
            : (errorReply(404, `The journal holds no request ${echoed(detail[1])}.`, 'invalid_request_error', 'not_found') as BodyReply),
        ),
        true
      );
    }
    const asset = dashboardAssets();
    if (asset instanceof Error) return (send(res, errorReply(500, asset.message, 'server_error', 'dashboard_not_built') as BodyReply), true);
    const file = asset.get(name)!;
    return (send(res, { status: 200, headers: { 'content-type': file.type }, body: file.bytes }), true);
  };
}

function send(res: ServerResponse, reply: BodyReply): void {
  const bytes = typeof reply.body === 'string' ? Buffer.from(reply.body) : Buffer.from(reply.body);
  res.writeHead(reply.status, { ...PAGE_HEADERS, ...reply.headers, 'content-length': bytes.length });
  res.end(bytes);
}
