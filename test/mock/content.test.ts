// Content profiles: replies that exercise a chat UI (prose by default, markdown, code, unicode, long
// words), chosen in the configuration or per request with x-mock-content, each deterministic, valid
// UTF-8 and exactly counted, cut by max_tokens and stop between tokens; and streams cut where
// careless clients break (split=bytes inside characters and the data: line, split=fence inside a
// fence), which the kit and the official SDK read to the same text.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ContentProfileName } from '../../mock/config/types.js';
import { ConfigError, loadConfigFile, parseConfig } from '../../mock/config/load.js';
import { PROFILE_NAMES } from '../../mock/core/content/profiles.js';
import { createMock } from '../../mock/core/handle.js';
import { interceptMock } from '../../mock/intercept.js';
import { countTokens, splitTokens } from '../../mock/core/tokens.js';
import type { Frame } from '../../mock/core/types.js';
import { chat, contentDeltas, events, finishOf, frames, json, KEY, MODEL, REASONER, scenarioMock, serverPerTest, statusOf, usageOf, user, withConfig, type Body } from './helpers.js';

const HEADER = 'x-mock-content';
const PROMPTS = ['Say OK.', 'Count from one to ten in words.', 'Tell me about caching.', 'hi', 'What is a queue?'];
const LONG_PROMPT = 'Write a long, detailed essay about the history of computing.';
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** No lone surrogate (a pair is one code point to a `u` regular expression). */
const wellFormed = (s: string) => !/\p{Cs}/u.test(s);

const mock = createMock();
const answer = (body: Body, content?: string, m = mock) => json(chat(m, body, content ? { [HEADER]: content } : {}));
const textOf = (body: Body, content?: string, m = mock) => answer(body, content, m).choices[0].message.content as string;

/** Every ordinary and long answer of a profile over a few prompts and seeds. */
function* samples(profile: string): Generator<[string, Body]> {
  for (const prompt of PROMPTS) for (const seed of [1, 2, 3]) yield [`${prompt} (seed ${seed})`, { ...user(prompt), seed }];
  for (const seed of [1, 2]) yield [`long (seed ${seed})`, { ...user(LONG_PROMPT), seed }];
  void profile;
}

describe.each(PROFILE_NAMES)('profile %s', (profile) => {
  it('is valid UTF-8, deterministic and counted exactly, streamed whole token by whole token', () => {
    for (const [what, body] of samples(profile)) {
      const a = answer(body, profile);
      const text = a.choices[0].message.content as string;
      expect(text.length, what).toBeGreaterThan(0);
      expect(wellFormed(text), what).toBe(true);
      expect(STRICT_UTF8.decode(Buffer.from(text)), what).toBe(text);
      expect(a.usage.completion_tokens, what).toBe(countTokens(text));
      expect(a.choices[0].finish_reason, what).toBe('stop');
      // The same request on this mock and on another gives the same text.
      expect(textOf(body, profile, createMock()), what).toBe(text);
      const fs = frames(chat(mock, { ...body, stream: true, stream_options: { include_usage: true } }, { [HEADER]: profile }));
      const deltas = contentDeltas(fs);
      expect(deltas.join(''), what).toBe(text);
      expect(deltas, what).toEqual(splitTokens(text));
      expect(usageOf(fs).completion_tokens, what).toBe(deltas.length);
    }
  });

  it('an ordinary answer ends by itself within 31 tokens (the kit asks with max_tokens 64 of a reasoning model)', () => {
    for (const prompt of PROMPTS)
      for (let seed = 0; seed < 40; seed++) {
        const a = answer({ ...user(prompt), seed, max_tokens: 64, model: REASONER }, profile);
        expect(a.choices[0].finish_reason).toBe('stop');
        expect(a.usage.completion_tokens - a.usage.completion_tokens_details.reasoning_tokens).toBeLessThanOrEqual(31);
        expect(a.usage.completion_tokens).toBeLessThan(64);
      }
  });

  it('an answer asked at length is long, and seeds vary the text', () => {
    const long = answer({ ...user(LONG_PROMPT), seed: 4 }, profile);
    expect(long.usage.completion_tokens).toBeGreaterThan(200);
    const texts = new Set([1, 2, 3, 4, 5, 6].map((seed) => textOf({ ...user('Tell me about caching.'), seed }, profile)));
    expect(texts.size).toBeGreaterThan(2);
  });

  it('max_tokens cuts between tokens (inside a code block too) and counts what it kept', () => {
    const body = { ...user(LONG_PROMPT), seed: 9 };
    const tokens = splitTokens(textOf(body, profile));
    for (const cap of [1, 2, 7, 33, 101]) {
      const a = answer({ ...body, max_tokens: cap }, profile);
      expect(a.choices[0].finish_reason).toBe('length');
      expect(a.choices[0].message.content).toBe(tokens.slice(0, cap).join(''));
      expect(a.usage.completion_tokens).toBe(cap);
      expect(countTokens(a.choices[0].message.content)).toBe(cap);
    }
  });

  it('a stop sequence taken from the answer ends it just before, streamed or not', () => {
    const body = { ...user(LONG_PROMPT), seed: 5 };
    const text = textOf(body, profile);
    // Whole code points: a stop sequence is text, never half a surrogate pair.
    const points = [...text];
    const stop = points.slice(points.length >> 1, (points.length >> 1) + 4).join('');
    const expected = text.slice(0, text.indexOf(stop));
    const a = answer({ ...body, stop }, profile);
    expect(a.choices[0].finish_reason).toBe('stop');
    expect(a.choices[0].message.content).toBe(expected);
    expect(contentDeltas(frames(chat(mock, { ...body, stop, stream: true }, { [HEADER]: profile }))).join('')).toBe(expected);
  });

  it('"Repeat exactly:" and structured output are what they must be, whatever the profile', () => {
    expect(textOf(user('Repeat exactly: alpha bravo charlie'), profile)).toBe('alpha bravo charlie');
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
    expect(JSON.parse(textOf({ ...user('n?'), response_format: { type: 'json_schema', json_schema: { name: 'n', schema } } }, profile))).toEqual({ n: expect.any(Number) });
  });
});

describe('what each profile holds', () => {
  const all = (profile: ContentProfileName, prompt: string, seeds = 12) => Array.from({ length: seeds }, (_, seed) => textOf({ ...user(prompt), seed }, profile));

  it('prose, the default: capitalised sentences with punctuation, in paragraphs separated by blank lines', () => {
    expect(textOf(user('Tell me about caching.'))).toBe(textOf(user('Tell me about caching.'), 'prose'));
    for (const text of [...all('prose', 'hi'), ...all('prose', LONG_PROMPT, 3)]) {
      for (const paragraph of text.split('\n\n')) expect(paragraph).toMatch(/^[A-Z"][^\n]*[.!?")]$/);
    }
    for (const text of all('prose', LONG_PROMPT, 3)) expect(text.split('\n\n').length).toBeGreaterThan(4);
    expect(all('prose', 'hi').some((t) => t.includes('\n\n'))).toBe(true);
  });

  it('markdown: an ordinary answer opens with a heading; a long one has headings, both lists, a table, a link, inline code and a fenced block', () => {
    for (const text of all('markdown', 'hi')) expect(text).toMatch(/^#{1,3} \S/);
    for (const text of all('markdown', LONG_PROMPT, 6)) {
      expect(text).toMatch(/^# \S/);
      expect(text).toMatch(/\n\n## \S/);
      expect(text).toMatch(/\n\n- \S[^\n]*\n- /);
      expect(text).toMatch(/\n\n1\. \S[^\n]*\n2\. /);
      expect(text).toMatch(/\n\n\| [^\n]+ \|\n\| :?---/);
      expect(text).toMatch(/\[[^\]]+\]\(https:\/\/[^)]+\)/);
      expect(text).toMatch(/[^`]`[^`\n]+`[^`]/);
      expect(text).toMatch(/\n\n```[a-z]+\n[\s\S]+?\n```/);
    }
  });

  it('code: one fenced block in a named language, indented', () => {
    for (const text of [...all('code', 'hi'), ...all('code', LONG_PROMPT, 4)]) {
      const fence = /(?:^|\n\n)```(python|typescript|go|rust)\n([\s\S]+)\n```$/.exec(text);
      expect(fence, text).not.toBeNull();
      expect(text.match(/```/g)).toHaveLength(2);
    }
    expect(all('code', LONG_PROMPT, 4).every((t) => /\n( {2,}|\t)\S/.test(t))).toBe(true);
    expect(all('code', 'hi').some((t) => /\n( {2,}|\t)\S/.test(t))).toBe(true);
  });

  it('unicode: accented Latin, CJK, an emoji ZWJ sequence, a flag and a right-to-left sentence, each in its own paragraph', () => {
    for (const text of [...all('unicode', 'hi'), ...all('unicode', LONG_PROMPT, 3)]) {
      expect(text).toMatch(/[À-ÿĀ-ž]/u);
      expect(text).toMatch(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Hangul}]/u);
      expect(text).toMatch(/\p{Extended_Pictographic}\u200d\p{Extended_Pictographic}/u);
      expect(text).toMatch(/\p{Regional_Indicator}{2}/u);
      expect(text).toMatch(/(^|\n\n)[\p{Script=Arabic}\p{Script=Hebrew}][^\n]*$/mu);
      // Only whole code points: a surrogate pair is never split, in the text or in a delta.
      expect(wellFormed(text)).toBe(true);
    }
  });

  it('long-words: words of 25 letters and more', () => {
    for (const text of [...all('long-words', 'hi'), ...all('long-words', LONG_PROMPT, 3)]) expect(text).toMatch(/\p{L}{25,}|[\w:/.-]{40,}/u);
  });

  it('a tool result is answered after a lead, in the profile', () => {
    const messages = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"t":20}' },
    ];
    const a = answer({ messages }, 'markdown');
    expect(a.choices[0].message.content).toMatch(/^Based on the tool result:\n\n#{1,3} /);
    expect(a.usage.completion_tokens).toBe(countTokens(a.choices[0].message.content));
    expect(textOf({ messages })).toMatch(/^Based on the tool result: [A-Z]/);
  });
});

describe('choosing a profile', () => {
  it('an unknown profile, split or parameter in the header is a 400 JSON error naming it', () => {
    const cases: [string, RegExp][] = [
      ['poetry', /x-mock-content: unknown content profile "poetry" \(the profiles are prose, markdown, code, unicode, long-words\)/],
      ['unicode; split=words', /x-mock-content: unknown split "words" \(one of none, bytes, fence\)/],
      ['markdown; chunks=2', /x-mock-content: content takes no parameter "chunks" \(it takes split\)/],
      ['markdown; fence', /x-mock-content: "fence" is no parameter/],
    ];
    for (const [header, message] of cases) {
      const reply = chat(mock, { ...user('hi'), stream: true }, { [HEADER]: header });
      expect(statusOf(reply)).toBe(400);
      const body = json(reply);
      expect(body.error.message).toMatch(message);
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.code).toBe('unknown_content');
    }
  });

  it('the configuration chooses for every model, per model and per scenario; the header over all', () => {
    const config = withConfig({
      content: 'code',
      models: mock.config.models.map((m) => (m.id === 'mock-chat-large' ? { ...m, content: { profile: 'unicode' } } : m)),
      scenarios: [{ name: 'md', match: { last_user: 'markdown please' }, reply: {}, content: 'markdown' }],
    });
    const m = createMock(config);
    const body = { ...user('hi'), seed: 3 };
    expect(textOf(body, undefined, m)).toBe(textOf(body, 'code'));
    expect(json(chat(m, { ...body, model: 'mock-chat-large' }, {}, mock.config.keys[1].key)).choices[0].message.content).toBe(
      json(chat(mock, { ...body, model: 'mock-chat-large' }, { [HEADER]: 'unicode' }, mock.config.keys[1].key)).choices[0].message.content,
    );
    expect(textOf({ ...user('markdown please'), seed: 3 }, undefined, m)).toBe(textOf({ ...user('markdown please'), seed: 3 }, 'markdown'));
    expect(textOf(body, 'long-words', m)).toBe(textOf(body, 'long-words'));
    // A header with only a split keeps the configured profile.
    expect(contentDeltas(frames(chat(m, { ...body, stream: true }, { [HEADER]: 'split=fence' }))).join('')).toBe(textOf(body, 'code'));
  });

  it('the reply cache tells requests apart by their header', () => {
    const m = createMock();
    const body = { ...user('hi'), seed: 1 };
    const texts = PROFILE_NAMES.map((p) => textOf(body, p, m));
    expect(new Set(texts).size).toBe(PROFILE_NAMES.length);
    expect(PROFILE_NAMES.map((p) => textOf(body, p, m))).toEqual(texts);
    expect(textOf(body, undefined, m)).toBe(texts[0]);
  });
});

describe('docs/mock.md', () => {
  it("shows each profile's answer to Hello! (seed 2) as the mock gives it", () => {
    const readme = readFileSync(fileURLToPath(new URL('../../docs/mock.md', import.meta.url)), 'utf8');
    const section = readme.slice(readme.indexOf('The answer to `Hello!` (seed 2'), readme.indexOf('Choose one per request'));
    const shown = [...section.matchAll(/^(`{3,4})(?:text|markdown)\n([\s\S]*?)\n\1$/gm)].map((m) => m[2]);
    expect(shown).toEqual(PROFILE_NAMES.map((p) => textOf({ ...user('Hello!'), seed: 2 }, p)));
  });
});

describe('examples/full.yaml', () => {
  it('answers one model in markdown and a scenario in code', () => {
    const config = loadConfigFile(fileURLToPath(new URL('../../examples/full.yaml', import.meta.url)));
    const m = createMock(config);
    const ask = (model: string, text: string) =>
      json(m.handle({ method: 'POST', path: '/v1/chat/completions', headers: { authorization: `Bearer ${config.keys[1].key}` }, body: JSON.stringify({ model, ...user(text), seed: 1 }) }));
    expect(ask('example-chat-large', 'What is new?').choices[0].message.content).toMatch(/^#{1,3} /);
    expect(ask('example-chat', 'What is new?').choices[0].message.content).toMatch(/^[A-Z][^#`]+$/);
    const code = ask('example-chat', 'Show me a code sample.');
    expect(code.choices[0].message.content).toMatch(/^```[a-z]+\n[\s\S]+\n```$/);
  });
});

describe('content in a configuration file', () => {
  const base = (extra: string) => `keys:
  - { id: a, key: sk-a, models: [m] }
models:
  - id: m
    name: M
    owned_by: t
    created: 1
    context_length: 1000
    max_output_tokens: 100
    quantization: null
    pricing: { prompt: "0", completion: "0" }
    parameters: {}
    compliance: { zdr: true, hipaa: false }
${extra}`;

  const mistake = (text: string): string => {
    try {
      parseConfig(text, 'mock.yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as Error).message;
    }
    throw new Error('loaded without an error');
  };

  it('loads every form', () => {
    const c = parseConfig(
      base('    content: { profile: unicode, split: bytes }\ncontent: "markdown; split=fence"\nscenarios:\n  - { name: s, match: {}, reply: {}, content: long-words }\n'),
      'mock.yaml',
    );
    expect(c.content).toBe('markdown; split=fence');
    expect(c.models[0].content).toEqual({ profile: 'unicode', split: 'bytes' });
    expect(c.scenarios![0].content).toBe('long-words');
  });

  it('an unknown profile names the file, the line and the field', () => {
    expect(mistake(base('content: poetry\n'))).toBe(
      'mock.yaml:14: content: expected a content profile and split; unknown content profile "poetry" (the profiles are prose, markdown, code, unicode, long-words)',
    );
    expect(mistake(base('    content: "unicode; split=words"\n'))).toBe('mock.yaml:14: models[0].content: expected a content profile and split; unknown split "words" (one of none, bytes, fence)');
    expect(mistake(base('scenarios:\n  - { name: s, match: {}, reply: { text: x }, content: poetry }\n'))).toMatch(
      /^mock\.yaml:15: scenarios\[0\]\.content: expected a content profile and split; unknown content profile "poetry"/,
    );
    // The object form is held to the schema, which lists the profiles.
    expect(mistake(base('content: { profile: poetry }\n'))).toContain('mock.yaml:14: content.profile: expected one of "prose", "markdown", "code", "unicode", "long-words"');
  });
});

/** A stream's text with the per-request parts (id, created) taken out. */
const stable = (text: string) => text.replace(/"id":"[^"]+","created":\d+,/g, '');
const bytesOf = (fs: Frame[]) => Buffer.concat(fs.map((f) => ('bytes' in f ? Buffer.from(f.bytes) : Buffer.alloc(0))));

describe('split=bytes', () => {
  const body = { ...user('hi'), seed: 2, stream: true, stream_options: { include_usage: true } };

  it('writes each event in pieces cut inside multi-byte characters and the data: line, each after a pause', () => {
    const whole = frames(chat(mock, body, { [HEADER]: 'unicode' }));
    const split = frames(chat(mock, body, { [HEADER]: 'unicode; split=bytes' }));
    // The same events, byte for byte.
    expect(stable(bytesOf(split).toString('utf8'))).toBe(stable(bytesOf(whole).toString('utf8')));
    expect(events(split)).toHaveLength(events(whole).length);
    expect(split.length).toBeGreaterThan(2 * whole.length);
    for (const f of split) expect(f.delayMs).toBeGreaterThanOrEqual(1);
    const pieces = split.map((f) => Buffer.from((f as { bytes: Uint8Array }).bytes));
    expect(pieces.filter((p) => p.toString('latin1') === 'da')).toHaveLength(whole.length);
    // A piece that is not UTF-8 on its own: it ends inside a character.
    const broken = pieces.filter((p) => {
      try {
        STRICT_UTF8.decode(p);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken.length).toBeGreaterThanOrEqual(contentDeltas(whole).filter((d) => /[^\x00-\x7f]/.test(d)).length);
  });

  it("comes from the configuration too, and cuts a scenario's text", () => {
    const m = scenarioMock([{ name: 'x', match: {}, reply: { text: 'Ça va? 👩‍💻 🇫🇷' } }], { content: { split: 'bytes' } });
    const split = frames(chat(m, body));
    expect(contentDeltas(split).join('')).toBe('Ça va? 👩‍💻 🇫🇷');
    expect(split.length).toBeGreaterThan(events(split).length * 2);
  });

  it('applies after a fault, which still counts whole events', () => {
    const split = frames(chat(mock, body, { [HEADER]: 'unicode; split=bytes', 'x-mock-fault': 'drop-after; chunks=3' }));
    expect(events(split.filter((f) => 'bytes' in f))).toHaveLength(3);
    expect(split.at(-1)).toMatchObject({ reset: true });
  });
});

describe('split=fence', () => {
  const fenced = (chunkTokens: number) => {
    const m = createMock(withConfig({ timing: { chunk_tokens: chunkTokens } }));
    const body = { ...user(LONG_PROMPT), seed: 3, stream: true, stream_options: { include_usage: true } };
    return { plain: frames(chat(m, body, { [HEADER]: 'markdown' })), split: frames(chat(m, body, { [HEADER]: 'markdown; split=fence' })) };
  };

  it.each([1, 4])("puts each fence's backticks across two deltas (chunk_tokens %i), the text and usage unchanged", (n) => {
    const { plain, split } = fenced(n);
    const deltas = contentDeltas(split);
    const text = deltas.join('');
    expect(text).toBe(contentDeltas(plain).join(''));
    expect(usageOf(split)).toEqual(usageOf(plain));
    expect(finishOf(split)).toBe('stop');
    const fences = text.match(/```/g)!.length;
    expect(fences).toBeGreaterThanOrEqual(2);
    // Every fence: one delta ends with two of its backticks, the next starts with the third.
    let cut = 0;
    for (let i = 0; i + 1 < deltas.length; i++) if (/(^|[^`])``$/.test(deltas[i]) && /^`(?!`)/.test(deltas[i + 1])) cut++;
    expect(cut).toBe(fences);
    expect(deltas.some((d) => d.includes('```'))).toBe(false);
  });
});

describe('over HTTP', () => {
  const server = serverPerTest();
  const body = { model: MODEL, messages: [{ role: 'user' as const, content: LONG_PROMPT }], seed: 11, max_tokens: 120, stream: true as const };

  it('a client reads the pieces of split=bytes apart', async () => {
    const s = await server();
    const read = async (content: string) => {
      const res = await fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', [HEADER]: content },
        body: JSON.stringify(body),
      });
      const reads: Uint8Array[] = [];
      for await (const chunk of res.body!) reads.push(chunk);
      return reads;
    };
    const [whole, split] = [await read('unicode'), await read('unicode; split=bytes')];
    expect(split.length).toBeGreaterThan(whole.length + 100);
    expect(stable(Buffer.concat(split).toString('utf8'))).toBe(stable(Buffer.concat(whole).toString('utf8')));
  });

  it('in-process too, a fetch client reads the pieces of split=bytes apart', async () => {
    const intercepted = interceptMock();
    try {
      const read = async (content: string) => {
        const res = await fetch(`${intercepted.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', [HEADER]: content },
          body: JSON.stringify({ ...body, max_tokens: 30 }),
        });
        const reads: Uint8Array[] = [];
        for await (const chunk of res.body!) reads.push(chunk);
        return reads;
      };
      const [whole, split] = [await read('unicode'), await read('unicode; split=bytes')];
      expect(split.length).toBeGreaterThan(whole.length * 2);
      expect(stable(Buffer.concat(split).toString('utf8'))).toBe(stable(Buffer.concat(whole).toString('utf8')));
    } finally {
      intercepted.dispose();
    }
  });

  it.each(['unicode; split=bytes', 'markdown; split=bytes', 'markdown; split=fence', 'code; split=fence'])('the openai SDK reads a %s stream to the same text as an unsplit one', async (content) => {
    const s = await server();
    const profile = content.split(';')[0];
    const client = new OpenAI({ apiKey: KEY, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const read = async (header: string) => {
      const stream = await client.chat.completions.create(body, { headers: { [HEADER]: header } });
      let text = '';
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      return { text, finish };
    };
    const split = await read(content);
    expect(split).toEqual(await read(profile));
    expect(split.finish).toBe('length');
    expect(split.text).toBe(textOf({ ...body, stream: false }, profile));
  });
});
