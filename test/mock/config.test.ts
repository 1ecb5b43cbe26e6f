// Configuration files: the full example loads, the built-in default serves with no file, and every
// kind of mistake is a ConfigError naming the file, the line, the path and what was expected; the
// CLI refuses to start on one (exit 2, that one message).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { ConfigError, loadConfigFile, parseConfig } from '../../mock/config/load.js';
import { createMock } from '../../mock/core/handle.js';
import { banner } from '../../mock/banner.js';
import { chat, json, statusOf, user } from './helpers.js';
import { within } from '../support/machine.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/full.yaml', import.meta.url));
const BIN = fileURLToPath(new URL('../../dist/bin/conformance.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mock-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Line numbers below are counted in this text (line 1 is `keys:`).
const VALID = `keys:
  - id: app
    key: sk-test-app-0000000001
    models: [m1, m2]
models:
  - id: m1
    name: Model One
    owned_by: tests
    created: 1
    context_length: 1000
    max_output_tokens: 100
    quantization: fp8
    pricing: { prompt: "0.000001", completion: "0.000002" }
    parameters: {}
    compliance: { zdr: true, hipaa: false }
  - id: m2
    name: Model Two
    owned_by: tests
    created: 2
    context_length: 1000
    max_output_tokens: 100
    quantization: null
    pricing:
      prompt: "0.000001"
      completion: "0.000002"
    parameters: {}
    compliance: { zdr: false, hipaa: false }
scenarios:
  - name: hello
    match: { last_user: hello }
    reply: { text: Hi there. }
faults:
  always: []
`;

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The ConfigError a file gives (it must throw one). */
function mistake(name: string, text: string): string {
  const file = write(name, text);
  try {
    loadConfigFile(file);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error(`${name} loaded without an error`);
}

const replace = (from: string, to: string) => {
  expect(VALID).toContain(from);
  return VALID.replace(from, to);
};

describe('configuration files', () => {
  it('loads examples/full.yaml, and the mock serves its keys, models and scenarios', () => {
    const config = loadConfigFile(EXAMPLE);
    expect(config.keys.map((k) => k.id)).toEqual(['web-app', 'batch']);
    expect(config.models.map((m) => m.id)).toEqual(['example-chat', 'example-chat-large', 'example-reasoner']);
    expect(config.scenarios?.length).toBeGreaterThanOrEqual(8);
    expect(config.journal_size).toBe(500);
    const mock = createMock(config);
    const key = config.keys[0].key;
    const models = mock.handle({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${key}` } });
    expect(json(models).data.map((m: { id: string }) => m.id)).toEqual(['example-chat', 'example-reasoner']);
    const hi = chat(mock, { model: 'example-chat', ...user('hello there') }, {}, key);
    expect(statusOf(hi)).toBe(200);
    expect(json(hi).choices[0].message.content).toBe('Hello! How can I help?');
    expect(mock.journal.list().at(-1)?.scenario).toBe('greeting');
  });

  it('a valid file loads as JSON as well as YAML', () => {
    const yaml = parseConfig(VALID, 'valid.yaml');
    const asJson = parseConfig(JSON.stringify(yaml, null, 2), 'valid.json');
    expect(asJson).toEqual(yaml);
    expect(yaml.models[1].quantization).toBeNull();
  });

  it('with no file the built-in default serves two keys and a reasoning model', () => {
    const mock = createMock();
    expect(mock.config).toBe(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG.keys).toHaveLength(2);
    expect(DEFAULT_CONFIG.models.some((m) => m.reasoning)).toBe(true);
    const r = chat(mock, user('Say something.'));
    expect(statusOf(r)).toBe(200);
    expect(json(r).object).toBe('chat.completion');
  });

  it('a file of three lines (one key, one canned reply) is read over the built-in configuration, and the mock runs it', async () => {
    const key = 'sk-my-key-0000000000000000000001';
    const file = write('three.yaml', `keys: [{ id: me, key: ${key}, models: [mock-chat-1] }]\nscenarios:\n  - { name: hello, match: { last_user: hello }, reply: { text: "Hi there!" } }\n`);
    const config = loadConfigFile(file);
    // What it gives replaces the built-in field whole; what it leaves out is the built-in one's.
    expect(config.keys.map((k) => k.id)).toEqual(['me']);
    expect(config.models).toEqual(DEFAULT_CONFIG.models);
    const child = spawn(process.execPath, [BIN, 'mock', '--config', file, '--pace', 'instant', '--port', '0']);
    try {
      const printed = await new Promise<string>((resolve) => {
        let out = '';
        child.stdout.on('data', (b: Buffer) => (out += b) && out.includes('keys (') && resolve(out));
      });
      expect(printed).toContain(`configuration: ${file}; 3 models, 1 scenario\n`);
      const url = /listening on (\S+)/.exec(printed)![1];
      const ask = (apiKey: string, said = 'hello there') =>
        fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: said }] }),
        });
      const reply = async (said: string) => ((await (await ask(key, said)).json()) as { choices: { message: { content: string } }[] }).choices[0].message.content;
      expect(await reply('hello there')).toBe('Hi there!');
      // As a person types it: a plain-text match is in any case.
      expect(await reply('Hello!')).toBe('Hi there!');
      expect((await ask(DEFAULT_CONFIG.keys[0].key)).status).toBe(401);
    } finally {
      child.kill();
    }
  });

  it('an unknown field names the field meant, or the fields the place takes', () => {
    expect(mistake('meant.yaml', 'scenario: []\n')).toBe(`${join(dir, 'meant.yaml')}:1: scenario: unknown field: did you mean scenarios?`);
    expect(mistake('colour.yaml', 'colour: red\n')).toMatch(/colour\.yaml:1: colour: unknown field \(the fields here are keys, models, scenarios, .*\)$/);
    // Said first: a misspelt field is also a missing one, and the name meant explains both.
    const misspelt = mistake('misspelt.yaml', replace('    owned_by: tests\n    created: 2', '    ownd_by: tests\n    created: 2')).split('\n');
    expect(misspelt[0]).toMatch(/misspelt\.yaml:18: models\[1\]\.ownd_by: unknown field: did you mean owned_by\?$/);
    expect(misspelt[1]).toMatch(/models\[1\]\.owned_by: expected this field; it is missing$/);
  });

  it('a file that replaces the models and keeps the built-in keys is told to give keys of its own', () => {
    const models = VALID.slice(VALID.indexOf('models:\n'), VALID.indexOf('scenarios:'));
    expect(mistake('models-only.yaml', models)).toMatch(
      /models-only\.yaml:\d+: models: the built-in keys use mock-chat-1, mock-reason-1, mock-chat-large, which these models do not define: give keys: of your own/,
    );
  });

  const mistakes: [kind: string, name: string, text: () => string, line: number, path: string, expected: RegExp][] = [
    ['a YAML syntax error', 'syntax.yaml', () => replace('    name: Model Two', '    name: Model: Two'), 17, '', /not valid YAML or JSON: .+/],
    ['an unknown field', 'unknown.yaml', () => replace('    owned_by: tests\n    created: 2', '    owned_by: tests\n    colour: blue\n    created: 2'), 19, 'models[1].colour', /unknown field/],
    [
      'a wrong type',
      'type.yaml',
      () => replace('    context_length: 1000\n    max_output_tokens: 100\n    quantization: null', '    context_length: lots\n    max_output_tokens: 100\n    quantization: null'),
      20,
      'models[1].context_length',
      /expected integer, found "lots"/,
    ],
    ['a missing required field', 'missing.yaml', () => replace('      prompt: "0.000001"\n      completion', '      completion'), 24, 'models[1].pricing.prompt', /expected this field; it is missing/],
    ['a malformed price', 'price.yaml', () => replace('      prompt: "0.000001"\n      completion', '      prompt: "$1"\n      completion'), 24, 'models[1].pricing.prompt', /expected text matching/],
    ['a key naming an undefined model', 'key-model.yaml', () => replace('models: [m1, m2]', 'models: [m1, m3]'), 4, 'keys[0].models[1]', /expected the id of a model defined under models; "m3"/],
    [
      'an unknown fault name',
      'fault.yaml',
      () => replace('  always: []', '  always:\n    - no-such-fault'),
      34,
      'faults.always[0]',
      /expected a fault of the catalogue; no fault named "no-such-fault"/,
    ],
    [
      'a fault parameter it does not take',
      'fault-param.yaml',
      () => replace('  always: []', '  always:\n    - { name: drop-after, params: { chunk: 3 } }'),
      34,
      'faults.always[0]',
      /expected a fault of the catalogue; fault "drop-after" takes no parameter "chunk" \(it takes chunks, times\)/,
    ],
    ['a bad regex', 'regex.yaml', () => replace('match: { last_user: hello }', 'match: { last_user: "/(unclosed/" }'), 30, 'scenarios[0].match.last_user', /expected a valid regular expression/],
    ['a duplicate model id', 'duplicate.yaml', () => replace('  - id: m2', '  - id: m1').replace('[m1, m2]', '[m1]'), 16, 'models[1].id', /expected each model id once; "m1" is defined twice/],
    [
      'a scenario naming an undefined model',
      'scenario-model.yaml',
      () => replace('match: { last_user: hello }', 'match: { model: m9 }'),
      30,
      'scenarios[0].match.model',
      /expected a model defined under models/,
    ],
  ];

  describe.each(mistakes)('%s', (_kind, name, text, line, path, expected) => {
    it(`throws a ConfigError naming ${name}:${line}${path ? `, ${path}` : ''} and what was expected`, () => {
      const message = mistake(name, text());
      const file = join(dir, name);
      expect(message.startsWith(`${file}:${line}:`), message).toBe(true);
      if (path) expect(message).toContain(`:${line}: ${path}: `);
      expect(message).toMatch(expected);
      expect(message).not.toContain('\n');
    });
  });

  it('names a file it cannot read', () => {
    const missing = join(dir, 'nope.yaml');
    expect(() => loadConfigFile(missing)).toThrow(ConfigError);
    expect(() => loadConfigFile(missing)).toThrow(`${missing}: cannot read the configuration: ENOENT`);
  });

  it('the CLI exits 2 with that one message and does not start a server', async () => {
    const file = write('cli-bad.yaml', replace('  - id: m2', '  - id: m1').replace('[m1, m2]', '[m1]'));
    let expected = '';
    try {
      loadConfigFile(file);
    } catch (e) {
      expected = (e as Error).message;
    }
    expect(expected).not.toBe('');
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, 'mock', '--config', file, '--port', '0'], { timeout: within(10_000) }, (_err, stdout, stderr) =>
        resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`conformance: ${expected}\n`);
    expect(r.stdout).not.toMatch(/listening/);
  });

  it('the CLI exits 2 on a --fault with a parameter the fault does not take', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, 'mock', '--fault', 'drop-after; chunk=3', '--port', '0'], { timeout: within(10_000) }, (_err, _stdout, stderr) =>
        resolve({ code: child.exitCode, stderr }),
      );
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('conformance: fault "drop-after" takes no parameter "chunk" (it takes chunks, times)\n');
  });
});

describe('conformance mock --content', () => {
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, 'mock', ...args, '--port', '0'], { timeout: within(10_000) }, (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }));
    });

  it('refuses a profile that does not exist, naming it', async () => {
    const r = await run(['--content', 'markdwn']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^conformance: --content: unknown content profile "markdwn": did you mean markdown\? \(the profiles are prose, markdown, code, unicode, long-words\)\n$/);
  });

  it('sets what every generated reply holds, over the configuration, and says so on start', async () => {
    const child = spawn(process.execPath, [BIN, 'mock', '--content', 'markdown; split=fence', '--pace', 'instant', '--port', '0']);
    try {
      const banner = await new Promise<string>((resolve) => {
        let out = '';
        child.stdout.on('data', (b: Buffer) => (out += b) && out.includes('keys (') && resolve(out));
      });
      expect(banner).toContain('content of generated replies: markdown; split=fence');
      const url = /listening on (\S+)/.exec(banner)![1];
      const r = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_CONFIG.keys[0].key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'Write a long answer.' }] }),
      });
      expect(((await r.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toMatch(/^#/m);
      const journal = (await (await fetch(`${url}/__mock/requests`)).json()) as { data: { content: string | null }[] };
      expect(journal.data.map((e) => e.content)).toEqual(['markdown; split=fence']);
    } finally {
      child.kill();
    }
  });
});

describe('the start-up banner', () => {
  it('names who may call, the configuration in use, the faults that are on, and each key itself to copy', () => {
    const text = banner('http://127.0.0.1:8080', DEFAULT_CONFIG, { faults: ['rate-limited; times=1'] });
    expect(text.split('\n')).toEqual([
      'mock listening on http://127.0.0.1:8080 (base URL and site URL)',
      'origins allowed: loopback (http(s)://localhost, *.localhost, 127.0.0.0/8, [::1], any port); more with --allow-origin ORIGIN',
      'hosts allowed: IP addresses, localhost, *.localhost; more with --allowed-host NAME',
      'configuration: built-in; 3 models, 0 scenarios',
      'faults on every request: "rate-limited; times=1"',
      'a fault on one request: the x-mock-fault header (conformance mock --list-faults)',
      'content of generated replies: prose',
      'content on one request: the x-mock-content header (prose, markdown, code, unicode, long-words; split=bytes or split=fence)',
      'pace of generated replies: at once',
      'reasoning: mock-reason-1 thinks 24 to 31 tokens before its answer (reasoning_effort low: 8 to 15, high: 64 to 71), counted in max_tokens: a max_tokens near that leaves an answer or a tool call cut (finish_reason "length")',
      'keys (test values, copy one into your client):',
      `  alpha  ${DEFAULT_CONFIG.keys[0].key}  models: mock-chat-1, mock-reason-1`,
      `  beta   ${DEFAULT_CONFIG.keys[1].key}  models: mock-chat-1, mock-chat-large`,
      '',
    ]);
  });

  it('says what the reasoning model spends before it answers, as the mock spends it: a tool call at a smaller max_tokens comes back cut', () => {
    const mock = createMock();
    const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
    for (const [effort, low, high] of [
      ['low', 8, 15],
      ['medium', 24, 31],
      ['high', 64, 71],
    ] as const) {
      for (const n of [1, 2, 3, 4, 5]) {
        const r = json(chat(mock, { model: 'mock-reason-1', reasoning_effort: effort, max_tokens: 512, ...user(`Question ${n}: why is the sky blue?`) }));
        const spent = r.usage.completion_tokens_details.reasoning_tokens;
        expect(spent, effort).toBeGreaterThanOrEqual(low);
        expect(spent, effort).toBeLessThanOrEqual(high);
      }
    }
    const call = (max_tokens: number) => json(chat(mock, { model: 'mock-reason-1', tools: [weather], tool_choice: 'required', max_tokens, ...user('What is the weather in Paris?') })).choices[0];
    expect(call(20)).toMatchObject({ finish_reason: 'length' });
    expect(call(256)).toMatchObject({ finish_reason: 'tool_calls' });
    expect(banner('http://127.0.0.1:8080', { ...DEFAULT_CONFIG, models: DEFAULT_CONFIG.models.filter((m) => !m.reasoning) }, { faults: [] })).not.toContain('reasoning:');
  });

  it('names the content configured, for all models and per model', () => {
    const config = {
      ...DEFAULT_CONFIG,
      content: 'markdown; split=fence',
      models: DEFAULT_CONFIG.models.map((m, i) => (i === 2 ? { ...m, content: { profile: 'unicode' as const, split: 'bytes' as const } } : m)),
    };
    expect(banner('http://127.0.0.1:8080', config, { faults: [] }).split('\n')).toContain('content of generated replies: markdown; split=fence, mock-reason-1: unicode; split=bytes');
  });
});
