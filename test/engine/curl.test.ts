// "Reproduce with:" works as printed: pasted into a shell with the keys in $CONFORMANCE_API_KEY and
// $CONFORMANCE_SECOND_API_KEY, the command replays the exact request; it never shows a key, and a
// secret it cannot name by variable (a near miss of the key) is redacted.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { curlOf } from '../../engine/curl.js';
import { basicCredential, Redactor, shellVariable } from '../../engine/redact.js';
import { NEAR_MISSES } from '../../suites/auth.js';
import { KEY, SECOND_KEY } from '../support/run.js';
import { sh } from '../support/cli.js';
import { builtInWork, type Counted } from '../support/built-in-work.js';
import { curlRuns } from '../support/skips.js';

describe('curl commands', () => {
  const redactor = new Redactor().add(KEY, shellVariable('CONFORMANCE_API_KEY')).add(SECOND_KEY, shellVariable('CONFORMANCE_SECOND_API_KEY')).add(`${KEY}x`);
  const body = JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: "It's a 'quoted' $HOME `tick` \\ test" }], max_tokens: 16 });

  it('shows the keys as variables and nothing else of them', () => {
    const cmd = curlOf({ method: 'POST', url: 'http://h/v1/chat/completions', headers: { authorization: `Bearer ${KEY}`, 'x-near': `Bearer ${KEY}x` }, body }, redactor.shellSecrets());
    expect(cmd).toContain(`-H 'authorization: Bearer '"$CONFORMANCE_API_KEY"`);
    expect(cmd).toContain(`-H 'x-near: Bearer ''[REDACTED]'`);
    expect(cmd).not.toContain(KEY);
  });

  it('reads a body once per secret, however many times the key stands in it', () => {
    // A model id of the key over and over, sent back in every request: a count, not a time.
    const indexOf: Counted = { on: String.prototype, method: 'indexOf', cost: (self: string, [needle, from = 0]: any[], found: number) => (found < 0 ? self.length : found + needle.length) - from };
    const perChar = [500, 2000].map((n) => {
      const request = { method: 'POST' as const, url: 'http://h/v1/chat/completions', headers: {}, body: JSON.stringify({ model: `${KEY} `.repeat(n) }) };
      let cmd = '';
      const read = builtInWork([indexOf], () => (cmd = curlOf(request, redactor.shellSecrets())));
      expect(cmd).not.toContain(KEY);
      return read / request.body.length;
    });
    // Each secret reads the body about once (12 of them, the forms of three keys).
    expect(perChar[1]).toBeLessThan(20);
    expect(perChar[1]).toBeLessThan(perChar[0] * 1.05);
  });

  it('makes the TLS choices of the run: --cacert, -k, --cert and --key', () => {
    const request = { method: 'GET' as const, url: 'https://h/v1/models', headers: {} };
    expect(curlOf(request, [], { caCert: 'certs/my ca.pem', clientCert: 'c.pem', clientKey: 'c.key' })).toBe(
      "curl -sS -N --cacert 'certs/my ca.pem' --cert 'c.pem' --key 'c.key' -X GET 'https://h/v1/models'",
    );
    expect(curlOf(request, [], { insecure: true })).toBe("curl -sS -N -k -X GET 'https://h/v1/models'");
    expect(curlOf(request, [])).toBe("curl -sS -N -X GET 'https://h/v1/models'");
  });

  it.skipIf(!curlRuns)('replays the exact request when pasted into a shell', async () => {
    const mock = createMock();
    const server = await startMockServer({ mock });
    try {
      for (const [key, variable] of [
        [KEY, 'CONFORMANCE_API_KEY'],
        [SECOND_KEY, 'CONFORMANCE_SECOND_API_KEY'],
      ]) {
        mock.journal.clear();
        const cmd = curlOf(
          { method: 'POST', url: `${server.url}/v1/chat/completions`, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body },
          redactor.shellSecrets(),
        );
        const r = await sh(cmd, { CONFORMANCE_API_KEY: KEY, CONFORMANCE_SECOND_API_KEY: SECOND_KEY });
        expect(r.code, variable).toBe(0);
        expect(JSON.parse(r.stdout).object).toBe('chat.completion');
        const [seen] = mock.journal.list();
        expect(seen.key_id).toBe(key === KEY ? 'alpha' : 'beta');
        expect(seen.body).toEqual(JSON.parse(body));
      }
    } finally {
      await server.close();
    }
  });
});

// A request sent with a key made from the key (a near miss, Basic credentials) replays as printed:
// the shell makes the same key from $CONFORMANCE_API_KEY, and the command shows nothing of it.
describe.skipIf(!curlRuns)('keys made from the key', () => {
  const made = (key: string) => [
    ...Object.entries(NEAR_MISSES).map(([name, m]) => ({ name, value: m.make(key), shell: m.shell('CONFORMANCE_API_KEY', key) })),
    {
      name: 'basic',
      value: basicCredential(key),
      shell: new Redactor()
        .add(key, shellVariable('CONFORMANCE_API_KEY'))
        .shellSecrets()
        .find((s) => s.value === basicCredential(key))!.shell!,
    },
  ];

  it.each(['sk-0123456789abcdefXYZ', 'sk-proj-zzZZ99-_.x', 'k9abcdefgh', 'A-b_c.d~e!9'])('%s: the shell makes each of them', async (key) => {
    for (const m of made(key)) {
      if (m.value === undefined) continue;
      expect(m.shell, m.name).not.toContain(key.slice(0, 4));
      const r = await sh(`printf %s ${m.shell}`, { CONFORMANCE_API_KEY: key });
      expect(r.stdout, m.name).toBe(m.value);
    }
  });
});
