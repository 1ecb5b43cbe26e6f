// Legal JSON that many parsers reject or servers choke on: a lone surrogate, a key written twice,
// nesting thousands deep, integers no double holds, an integer spelled `16.0`, empty arrays, strings
// of a megabyte, a thousand messages, an array of 100,000 items, a field nobody declared. A 4xx is as right as an answer; a 5xx,
// a dropped connection or a hang never is.
import fc from 'fast-check';
import { RawJson, type FuzzCase } from './case.js';
import { BEYOND_DOUBLE, integerIn, integerSpellings } from './numbers.js';
import { rangeOf, type ModelSpace } from './space.js';
import { identifier, longText, LONG_LENGTHS, loneSurrogate, text, textOf } from './text.js';
import { validBody, type Body } from './valid.js';

const either = (what: string, body: Body, extra: Partial<FuzzCase> = {}): FuzzCase => ({ expect: 'either', what, body, ...extra });

/** The body with its last message's content replaced. */
export const withContent = (b: Body, content: unknown): Body => {
  const messages = [...(b.messages as Record<string, unknown>[])];
  messages[messages.length - 1] = { ...messages[messages.length - 1], content };
  return { ...b, messages };
};

/** Depths of nesting: past common recursion limits (serde_json's 128, Python's and Jackson's 1000)
 * and far past them. */
export const DEPTHS = [64, 1_000, 10_000] as const;
export const nested = (depth: number) => new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`);

const longContent = (base: fc.Arbitrary<Body>, n: number) => fc.tuple(base, longText(n, n)).map(([b, t]) => either(`content of ${n.toLocaleString('en-US')} characters`, withContent(b, t)));

/** A megabyte of content: tried once in a session (the breadth list), not drawn at random, where it
 * would cost more than the rest of the session. */
export const megabyte = (m: ModelSpace) => longContent(validBody(m), LONG_LENGTHS[2]);

export function edgeCases(m: ModelSpace): fc.Arbitrary<FuzzCase>[] {
  const base = validBody(m);
  const tokens = rangeOf(m, 'max_tokens', { min: 1, max: 4096 });
  return [
    fc.tuple(base, text(10), textOf(loneSurrogate, 1, 2)).map(([b, t, s]) => either('a lone surrogate in content', withContent(b, `${t}${s}`))),
    base.map((b) => either('model written twice', b, { duplicate: 'model' })),
    fc.tuple(base, fc.constantFrom(...BEYOND_DOUBLE)).map(([b, t]) => either('a seed no double holds', { ...b, seed: new RawJson(t) })),
    fc.tuple(base, integerIn(tokens.min, tokens.max), fc.nat(1)).map(([b, n, form]) => {
      const spelled = integerSpellings(n)[form];
      return either(`max_tokens written ${spelled}`, { ...b, max_tokens: new RawJson(spelled) });
    }),
    base.map((b) => either('stop empty', { ...b, stop: [] })),
    base.map(({ tool_choice: _c, ...b }) => either('tools empty', { ...b, tools: [] })),
    fc.tuple(base, identifier, fc.jsonValue({ maxDepth: 2 })).map(([b, name, v]) => either('a field the document does not list', { ...b, [`x_${name}`]: v })),
  ];
}

/** The edge requests that cost a server (and the mock) tens of times an ordinary one: drawn rarely. */
export function costlyEdgeCases(m: ModelSpace): fc.Arbitrary<FuzzCase>[] {
  const base = validBody(m);
  const conversation = (n: number) => [...Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i + 1}` })), { role: 'user', content: 'Say OK.' }];
  return [
    fc.tuple(base, fc.constantFrom(...DEPTHS)).map(([b, depth]) => either(`an extra field nested ${depth} deep`, { ...b, x_conformance_nested: nested(depth) })),
    longContent(base, LONG_LENGTHS[1]),
    fc
      .tuple(base, identifier, fc.constantFrom(10_000, 100_000))
      .map(([b, name, n]) => either(`a field the document does not list, an array of ${n.toLocaleString('en-US')} items`, { ...b, [`x_${name}`]: new RawJson(`[${'0,'.repeat(n - 1)}0]`) })),
    fc.tuple(base, fc.integer({ min: 200, max: 1_000 })).map(([b, n]) => either(`${n + 1} messages`, { ...b, messages: conversation(n) })),
  ];
}
