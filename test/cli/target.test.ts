// Before any verdict, the kit asks whether it talks to the API at all (suites/sanity.ts): a page
// where the API should be, a base URL given with /v1, a server with no such routes: exit 2, one line
// that says what was seen and what to change, no report. On the other side of the line, an API with
// one route broken keeps its verdicts.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import type { RawReport } from '../../report/report.js';
import { cli } from '../support/cli.js';

const KEY = DEFAULT_CONFIG.keys[0].key;
const dir = mkdtempSync(join(tmpdir(), 'conformance-target-'));
let mock: MockServer;
const servers: { url: string; close(): void }[] = [];

/** A server on 127.0.0.1 that answers every request with `answer`, or hands it to the mock (under
 * `prefix`: the mock's routes one /v1 deeper). */
async function serve(answer: (req: IncomingMessage, res: ServerResponse) => boolean, prefix = ''): Promise<string> {
  const server = createServer((req, res) => {
    if (answer(req, res)) return req.resume();
    if (!req.url?.startsWith(prefix)) return noRoute(res) && req.resume();
    const upstream = request(`${mock.url}${req.url.slice(prefix.length)}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push({
    url,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  return url;
}

const LOGIN = '<!doctype html><html><head><title>Sign in</title></head><body><form>…</form></body></html>';
const page = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(LOGIN);
  return true;
};
const noRoute = (res: ServerResponse) => {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":"Not Found","statusCode":404}');
  return true;
};

/** What `python3 -m http.server` answers where there is no file (404 to GET) and to a method it has
 * no handler for (501 to POST), and a proxy's page when its upstream is down or not up yet. */
const errorPage = (res: ServerResponse, status: number, title: string) => {
  res.writeHead(status, { 'content-type': 'text/html;charset=utf-8' });
  res.end(`<!DOCTYPE HTML>\n<html lang="en">\n    <head>\n        <meta charset="utf-8">\n        <title>${title}</title>\n    </head>\n    <body><h1>${title}</h1></body>\n</html>\n`);
  return true;
};
const PAGES: Record<string, { answer: (req: IncomingMessage, res: ServerResponse) => boolean; answered: string }> = {
  'a web server (python3 -m http.server)': {
    answer: (req, res) => (req.method === 'POST' ? errorPage(res, 501, 'Error response') : errorPage(res, 404, 'Error response')),
    answered: 'GET /v1/models answered 404 text/html ("Error response") and POST /v1/chat/completions 501 text/html ("Error response")',
  },
  "a proxy's 502 page": {
    answer: (_req, res) => errorPage(res, 502, '502 Bad Gateway'),
    answered: 'GET /v1/models answered 502 text/html ("502 Bad Gateway") and POST /v1/chat/completions 502 text/html ("502 Bad Gateway")',
  },
  "a proxy's 503 page": {
    answer: (_req, res) => errorPage(res, 503, '503 Service Temporarily Unavailable'),
    answered: 'GET /v1/models answered 503 text/html ("503 Service Temporarily Unavailable") and POST /v1/chat/completions 503 text/html ("503 Service Temporarily Unavailable")',
  },
};

let urls: Record<string, string>;
beforeAll(async () => {
  mock = await startMockServer();
  urls = {
    page: await serve((_req, res) => page(res)),
    'no route': await serve((_req, res) => noRoute(res)),
    'a broken model list': await serve((req, res) => req.url === '/v1/models' && page(res)),
    'a model list that is not found': await serve((req, res) => req.url === '/v1/models' && noRoute(res)),
    'an API under /v1/v1': await serve(() => false, '/v1'),
  };
  for (const [name, { answer }] of Object.entries(PAGES)) urls[name] = await serve(answer);
});
afterAll(async () => {
  for (const s of servers) s.close();
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('a target that is not the API', () => {
  it.each(['run', 'fuzz', 'load'])('%s: a page where the API should be is exit 2, one line naming what answered, no report', async (command) => {
    const file = join(dir, `page-${command}.json`);
    const r = await cli([command, '--base-url', urls.page, '--api-key', KEY, '--reporter', `json=${file}`]);
    expect(r.code).toBe(2);
    const said = r.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.includes('fuzz seed'));
    expect(said).toEqual([expect.stringContaining('does not answer as the API')]);
    expect(said[0]).toContain('GET /v1/models answered 200 text/html ("Sign in")');
    expect(said[0]).toContain('POST /v1/chat/completions 200 text/html');
    expect(existsSync(file)).toBe(false);
  });

  it('a base URL given with /v1 is exit 2, saying the one to give', async () => {
    const r = await cli(['run', '--base-url', `${mock.url}/v1`, '--api-key', KEY]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`use --base-url ${mock.url}`);
    expect(r.stderr).toContain('ends in /v1, and the kit appends /v1/... itself');
  });

  it("the mock's not-the-api-html fault (a web server's pages, 404 and 501) is exit 2, one line, no report", async () => {
    const pages = await startMockServer({ mock: createMock(undefined, { faults: ['not-the-api-html'] }) });
    try {
      const file = join(dir, 'not-the-api-html.json');
      const r = await cli(['run', '--base-url', pages.url, '--api-key', KEY, '--reporter', `json=${file}`]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        `conformance: ${pages.url} does not answer as the API: GET /v1/models answered 404 text/html ("Error response") and POST /v1/chat/completions 501 text/html ("Error response"); is --base-url the API's address (not a proxy's page, another port or path)?`,
      ]);
      expect(existsSync(file)).toBe(false);
    } finally {
      await pages.close();
    }
  });

  // An error page is no API's answer whatever its status: a 5xx page is not a server in trouble to be
  // judged (54 checks not tested), nor one getting ready to be waited for (test/cli/ready.test.ts).
  it.each(Object.keys(PAGES))('%s is exit 2, one line naming what answered, no report', async (which) => {
    const file = join(dir, `${which}.json`);
    const r = await cli(['run', '--base-url', urls[which], '--api-key', KEY, '--reporter', `json=${file}`]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `conformance: ${urls[which]} does not answer as the API: ${PAGES[which].answered}; is --base-url the API's address (not a proxy's page, another port or path)?`,
    ]);
    expect(existsSync(file)).toBe(false);
  });

  it('a server that has neither route is exit 2', async () => {
    const r = await cli(['run', '--base-url', urls['no route'], '--api-key', KEY]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('GET /v1/models answered 404 application/json and POST /v1/chat/completions 404 application/json');
  });
});

describe.concurrent('the API', () => {
  it('under /v1/v1, given a base URL that ends in /v1, runs with a warning before the run and in the report', async () => {
    const r = await cli(['run', '--base-url', `${urls['an API under /v1/v1']}/v1`, '--api-key', KEY, '--suite', 'models']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^conformance: warning: the base URL ends in \/v1/);
    expect(r.stdout).toMatch(/ends in \/v1/);
  });

  it.each(['a broken model list', 'a model list that is not found'])('with %s keeps its verdicts', async (which) => {
    const file = join(dir, `${which}.json`);
    const r = await cli(['run', '--base-url', urls[which], '--api-key', KEY, '--model', 'mock-chat-1', '--suite', 'models', '--suite', 'chat', '--reporter', `json=${file}`]);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(readFileSync(file, 'utf8')) as RawReport;
    expect(report.results.find((x) => x.id === 'models.list-shape')!.outcome).toBe('fail');
    expect(report.results.find((x) => x.id === 'chat.role.user')!.outcome).toBe('pass');
  });
});
