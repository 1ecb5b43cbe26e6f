// HTTPS as curl does it, from the command line: the mock served over TLS with certificates made for
// the test; the kit trusts a CA through --ca-cert or NODE_EXTRA_CA_CERTS, stops at once (exit 2, one
// line with the ways out) on a certificate it cannot trust, skips verification with --insecure and
// says so, presents a client certificate for mutual TLS; proxies keep working beside all of it.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { validator } from '../../schemas/index.js';
import { BIN, cli as runCli, sh } from '../support/cli.js';
import { KEY, SECOND_KEY } from '../support/run.js';
import { makeCertificates, type Certificates, type Pair } from './certificates.js';
import { startProxy } from './proxy.js';
import { within } from '../support/machine.js';

/** The environment of a run: no proxy of the machine's (undici prefers the lowercase names, so
 * one left over would win over the test's), each unset. */
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY', 'NODE_EXTRA_CA_CERTS'];
const NO_PROXY_ENV = Object.fromEntries(PROXY_VARIABLES.map((k) => [k, undefined]));

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { ...NO_PROXY_ENV, ...env }, within(30_000));

const keys = ['--api-key', KEY, '--second-api-key', SECOND_KEY];
const oneLine = (text: string) => text.trim().split('\n');
const neverAKey = (...texts: string[]) => {
  for (const t of texts) {
    expect(t).not.toContain(KEY);
    expect(t).not.toContain(SECOND_KEY);
  }
};

describe('HTTPS', () => {
  let certs: Certificates;
  /** One mock per certificate, each with its journal, to see that a refused run sent nothing. */
  const servers: Record<string, { server: MockServer; mock: Mock }> = {};
  const start = async (name: string, pair: Pair | undefined, clientCa?: string, mock = createMock()) => {
    const server = await startMockServer({
      mock,
      ...(pair ? { tls: { cert: readFileSync(pair.cert, 'utf8'), key: readFileSync(pair.key, 'utf8'), ...(clientCa ? { clientCa: readFileSync(clientCa, 'utf8') } : {}) } } : {}),
    });
    servers[name] = { server, mock };
  };
  const url = (name: string) => servers[name].server.url;

  beforeAll(async () => {
    certs = makeCertificates();
    await Promise.all([
      start('http', undefined),
      start('trusted', certs.server),
      start('self-signed', certs.selfSigned),
      start('expired', certs.expired),
      start('other-name', certs.otherName),
      start('unknown-ca', certs.unknownCa),
      start('mutual', certs.server, certs.ca.cert),
      // Its model list fails a check, so that the run shows evidence and its curl commands.
      start('self-signed, faulty', certs.selfSigned, undefined, createMock(undefined, { faults: ['models-owned-by-missing'] })),
    ]);
  });
  afterAll(() => Promise.all(Object.values(servers).map((s) => s.server.close())));

  it('trusts the server through --ca-cert: every check gives the verdict it gives over http', async () => {
    expect(url('trusted')).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const [overTls, overHttp] = await Promise.all([
      cli(['run', '--base-url', url('trusted'), ...keys, '--ca-cert', certs.ca.cert, '--strict', '--reporter', 'json']),
      cli(['run', '--base-url', url('http'), ...keys, '--strict', '--reporter', 'json']),
    ]);
    expect(overTls.code, overTls.stderr).toBe(0);
    const verdicts = (stdout: string) => (JSON.parse(stdout).results as { id: string; outcome: string }[]).map((r) => `${r.id}=${r.outcome}`);
    expect(verdicts(overTls.stdout)).toEqual(verdicts(overHttp.stdout));
    const report = JSON.parse(overTls.stdout);
    expect(validator('report')(report).errors).toEqual([]);
    expect(report.target.tls).toEqual({ insecure: false, caCert: certs.ca.cert });
    neverAKey(overTls.stdout, overTls.stderr);
  });

  it('trusts a CA of NODE_EXTRA_CA_CERTS, also beside a --ca-cert of another CA', async () => {
    const [extra, both] = await Promise.all([
      cli(['run', '--base-url', url('trusted'), ...keys, '--suite', 'models'], { NODE_EXTRA_CA_CERTS: certs.ca.cert }),
      cli(['run', '--base-url', url('trusted'), ...keys, '--suite', 'models', '--ca-cert', certs.selfSigned.cert], { NODE_EXTRA_CA_CERTS: certs.ca.cert }),
    ]);
    expect(extra.code, extra.stderr).toBe(0);
    expect(both.code, both.stderr).toBe(0);
  });

  it.each([
    ['self-signed', /the server's certificate is self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\): trust its CA with --ca-cert FILE \(or NODE_EXTRA_CA_CERTS=FILE\), or skip verification with --insecure$/],
    [
      'unknown-ca',
      /the server's certificate is signed by an unknown CA \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): trust its CA with --ca-cert FILE \(or NODE_EXTRA_CA_CERTS=FILE\), or skip verification with --insecure$/,
    ],
    ['expired', /the server's certificate has expired \(CERT_HAS_EXPIRED\): have it renewed, or skip verification with --insecure$/],
    [
      'other-name',
      /the server's certificate is not for 127\.0\.0\.1 \(it names DNS:other\.example\) \(ERR_TLS_CERT_ALTNAME_INVALID\): use a name the certificate holds, or skip verification with --insecure$/,
    ],
  ])('stops before any check on a %s certificate: exit 2, one line naming it and the ways out', async (name, said) => {
    const r = await cli(['run', '--base-url', url(name), ...keys, '--ca-cert', certs.ca.cert]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toEqual([expect.stringMatching(new RegExp(`^conformance: cannot reach ${url(name)}: ${said.source}`))]);
    expect(r.stdout).toBe('');
    expect(servers[name].mock.journal.list()).toEqual([]);
    neverAKey(r.stderr);
  });

  it('stops on an https URL that names a plain-HTTP port, and on an http URL that names a TLS port', async () => {
    const [tlsToHttp, httpToTls] = await Promise.all([
      cli(['run', '--base-url', url('http').replace('http:', 'https:'), ...keys]),
      cli(['run', '--base-url', url('trusted').replace('https:', 'http:'), ...keys]),
    ]);
    expect(tlsToHttp.code).toBe(2);
    expect(oneLine(tlsToHttp.stderr)).toEqual([
      expect.stringMatching(/: the server does not answer in TLS \(a plain-HTTP port\?\) \(ERR_SSL_WRONG_VERSION_NUMBER\): use http:\/\/ if it serves plain HTTP$/),
    ]);
    expect(httpToTls.code).toBe(2);
    expect(oneLine(httpToTls.stderr)).toEqual([`conformance: cannot reach ${url('trusted').replace('https:', 'http:')}: the port answers in TLS: use ${url('trusted')}`]);
  });

  it('with --insecure accepts any certificate, and every report and replay command says so', async () => {
    const r = await cli([
      'run',
      '--base-url',
      url('self-signed, faulty'),
      ...keys,
      '--suite',
      'models',
      '--insecure',
      '--reporter',
      'pretty',
      '--reporter',
      `json=${join(certs.dir, 'insecure.json')}`,
      '--reporter',
      `junit=${join(certs.dir, 'insecure.xml')}`,
      '--reporter',
      `markdown=${join(certs.dir, 'insecure.md')}`,
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(oneLine(r.stdout)[0]).toMatch(new RegExp(`^chat-api-conformance \\S+ → ${url('self-signed, faulty')}; TLS verification off \\(--insecure\\)$`));
    const report = JSON.parse(readFileSync(join(certs.dir, 'insecure.json'), 'utf8'));
    expect(validator('report')(report).errors).toEqual([]);
    expect(report.target.tls).toEqual({ insecure: true });
    expect(readFileSync(join(certs.dir, 'insecure.xml'), 'utf8')).toContain('<property name="target.tls.insecure" value="true"/>');
    expect(readFileSync(join(certs.dir, 'insecure.md'), 'utf8')).toContain('> ⚠️ TLS verification off (--insecure).');
    const replay = /Reproduce with: (curl .*)$/m.exec(r.stdout)?.[1];
    expect(replay).toMatch(/^curl -sS -N -k -X GET 'https:\/\/127\.0\.0\.1:\d+\/v1\/models'/);
    // Pasted into a shell, the command meets the same server the same way.
    const replayed = await sh(replay!, { ...NO_PROXY_ENV, CONFORMANCE_API_KEY: KEY });
    expect(JSON.parse(replayed.stdout).object).toBe('list');
    neverAKey(r.stdout, r.stderr, readFileSync(join(certs.dir, 'insecure.json'), 'utf8'));
  });

  it('mutual TLS: accepted with the client certificate, refused without it or with one of another CA (exit 2, one line)', async () => {
    const [withCert, without, foreign] = await Promise.all([
      cli([
        'run',
        '--base-url',
        url('mutual'),
        ...keys,
        '--suite',
        'models',
        '--ca-cert',
        certs.ca.cert,
        '--client-cert',
        certs.client.cert,
        '--client-key',
        certs.client.key,
        '--header',
        'x-mock-fault: models-owned-by-missing',
      ]),
      cli(['run', '--base-url', url('mutual'), ...keys, '--ca-cert', certs.ca.cert]),
      cli(['run', '--base-url', url('mutual'), ...keys, '--ca-cert', certs.ca.cert, '--client-cert', certs.unknownCa.cert, '--client-key', certs.unknownCa.key]),
    ]);
    // Accepted: the faulted list fails its check, and the replay command presents the certificate.
    expect(withCert.code, withCert.stderr).toBe(1);
    expect(withCert.stdout).toContain(`Reproduce with: curl -sS -N --cacert '${certs.ca.cert}' --cert '${certs.client.cert}' --key '${certs.client.key}' -X GET '${url('mutual')}/v1/models'`);
    expect(without.code).toBe(2);
    expect(oneLine(without.stderr)).toEqual([
      `conformance: cannot reach ${url('mutual')}: the server asks for a client certificate (ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED): give one it accepts with --client-cert FILE --client-key FILE`,
    ]);
    expect(foreign.code).toBe(2);
    expect(oneLine(foreign.stderr)).toEqual([expect.stringMatching(/: the server closed the connection after the TLS handshake without answering: it does not seem to accept the client certificate/)]);
    neverAKey(withCert.stdout, without.stderr, foreign.stderr);
  });

  it('a TLS file that cannot be used is exit 2 naming it, before any request', async () => {
    const sent = () => servers.trusted.mock.journal.list().length + servers.mutual.mock.journal.list().length;
    const before = sent();
    const runs = await Promise.all([
      cli(['run', '--base-url', url('trusted'), ...keys, '--ca-cert', join(certs.dir, 'nope.pem')]),
      cli(['run', '--base-url', url('trusted'), ...keys, '--ca-cert', certs.ca.key]),
      cli(['run', '--base-url', url('mutual'), ...keys, '--ca-cert', certs.ca.cert, '--client-cert', certs.client.cert, '--client-key', certs.server.key]),
      cli(['run', '--base-url', url('mutual'), ...keys, '--ca-cert', certs.ca.cert, '--client-cert', certs.client.cert]),
    ]);
    const said = runs.map((r) => (expect(r.code).toBe(2), oneLine(r.stderr)));
    expect(said).toEqual([
      [`conformance: --ca-cert ${join(certs.dir, 'nope.pem')}: cannot read it: ENOENT`],
      [`conformance: --ca-cert ${certs.ca.key}: not a PEM certificate file (no -----BEGIN CERTIFICATE----- block)`],
      [`conformance: --client-key ${certs.server.key} does not go with --client-cert ${certs.client.cert}: key values mismatch`],
      [`conformance: --client-cert ${certs.client.cert} holds no private key: give it with --client-key FILE`],
    ]);
    expect(sent()).toBe(before);
  });

  it('a catalog on another origin that fails TLS leaves the catalog checks not-tested, with the reason', async () => {
    const r = await cli(['run', '--base-url', url('trusted'), ...keys, '--ca-cert', certs.ca.cert, '--site-url', url('self-signed'), '--suite', 'catalog', '--reporter', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const results = JSON.parse(r.stdout).results as { id: string; outcome: string; message?: string }[];
    const available = results.find((x) => x.id === 'catalog.available')!;
    expect(available.outcome).toBe('not-tested');
    expect(available.message).toBe(
      `the catalog at ${url('self-signed')}/models.json could not be fetched over TLS: the server's certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT): trust its CA with --ca-cert FILE (or NODE_EXTRA_CA_CERTS=FILE), or skip verification with --insecure`,
    );
    expect(results.filter((x) => x.outcome === 'fail')).toEqual([]);
  });

  it('goes through HTTP_PROXY (absolute-URI requests) unless NO_PROXY names the host, and through HTTPS_PROXY (a CONNECT tunnel) with --ca-cert', async () => {
    const proxy = await startProxy();
    try {
      const through = await cli(['run', '--base-url', url('http'), ...keys], { HTTP_PROXY: proxy.url });
      expect(through.code, through.stderr + through.stdout.slice(-2000)).toBe(0);
      const relayed = proxy.relayed();
      expect(relayed).toBeGreaterThan(0);
      const bypassed = await cli(['run', '--base-url', url('http'), ...keys, '--suite', 'models'], { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
      expect(bypassed.code, bypassed.stderr).toBe(0);
      expect(proxy.relayed()).toBe(relayed);
      const tunnelled = await cli(['run', '--base-url', url('trusted'), ...keys, '--suite', 'models', '--ca-cert', certs.ca.cert], { HTTPS_PROXY: proxy.url });
      expect(tunnelled.code, tunnelled.stderr).toBe(0);
      expect(proxy.tunnels()).toBeGreaterThan(0);
      expect(proxy.relayed()).toBe(relayed);
    } finally {
      await proxy.close();
    }
  });
});

describe('conformance mock --tls-cert --tls-key', () => {
  let certs: Certificates;
  beforeAll(() => {
    certs = makeCertificates();
  });

  it('serves https and says so in its banner', async () => {
    const child = execFile(process.execPath, [BIN, 'mock', '--port', '0', '--tls-cert', certs.server.cert, '--tls-key', certs.server.key], { timeout: within(20_000) });
    try {
      const banner = await new Promise<string>((resolve) => {
        let out = '';
        child.stdout!.on('data', (d) => {
          out += d;
          if (out.includes('keys (test values')) resolve(out);
        });
      });
      const base = /^mock listening on (https:\/\/127\.0\.0\.1:\d+) \(base URL and site URL\)$/m.exec(banner)?.[1];
      expect(base).toBeDefined();
      expect(banner).toContain(`TLS: certificate ${certs.server.cert}`);
      const r = await cli(['run', '--base-url', base!, ...keys, '--suite', 'models', '--ca-cert', certs.ca.cert]);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('exits 2 on a key that does not go with the certificate, or a certificate without a key', async () => {
    const mock = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(process.execPath, [BIN, 'mock', '--port', '0', ...args], { timeout: within(10_000) }, (_e, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }));
      });
    const [mismatch, alone] = await Promise.all([mock(['--tls-cert', certs.server.cert, '--tls-key', certs.client.key]), mock(['--tls-cert', certs.server.cert])]);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toBe(`conformance: --tls-cert ${certs.server.cert} with --tls-key ${certs.client.key}: key values mismatch\n`);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe(`conformance: serving https takes both --tls-cert FILE and --tls-key FILE (got only --tls-cert ${certs.server.cert})\n`);
    expect(mismatch.stdout + alone.stdout).not.toMatch(/listening/);
  });
});
