// "Reproduce with:" works as printed: pasted into a shell with the keys in $CONFORMANCE_API_KEY and
// $CONFORMANCE_SECOND_API_KEY, the command replays the exact request; it never shows a key, and a
// secret it cannot name by variable (a near miss of the key) is redacted.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { curlOf } from '../../engine/curl.js';
import { Redactor } from '../../engine/redact.js';
import { KEY, SECOND_KEY } from '../support/run.js';
import { sh } from '../support/cli.js';
import { curlRuns } from '../support/skips.js';

describe('curl commands', () => {
  const redactor = new Redactor().add(KEY, 'CONFORMANCE_API_KEY').add(SECOND_KEY, 'CONFORMANCE_SECOND_API_KEY').add(`${KEY}x`);
  const body = JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: "It's a 'quoted' $HOME `tick` \\ test" }], max_tokens: 16 });

  it('shows the keys as variables and nothing else of them', () => {
    const cmd = curlOf({ method: 'POST', url: 'http://h/v1/chat/completions', headers: { authorization: `Bearer ${KEY}`, 'x-near': `Bearer ${KEY}x` }, body }, redactor.shellSecrets());
    expect(cmd).toContain(`-H 'authorization: Bearer '"$CONFORMANCE_API_KEY"`);
    expect(cmd).toContain(`-H 'x-near: Bearer ''[REDACTED]'`);
    expect(cmd).not.toContain(KEY);
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
