// The two scans before parsing (the mock's limits of a request, mock/core/limits.ts; the kit's of an
// answer, engine/json.ts) leave most texts unread: one no longer than every limit, or with no more
// characters that open a level than the depth allows (issue 36). Whatever the text, their verdict is
// the one a scan of every character gives: the scan itself, written here as it stood before.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { closingQuote } from '../engine/json-strings.js';
import { jsonLimitProblem } from '../engine/json.js';
import { bodyShape } from '../mock/core/limits.js';

/** The mock's scan of every character: the limit a body goes past, if any. */
function scannedShape(src: string, limits: { depth: number; keys: number; items: number }): string | undefined {
  const commas: number[] = [];
  const object: boolean[] = [];
  let depth = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '"') {
      const end = closingQuote(src, i + 1);
      if (end === src.length) break;
      i = end;
    } else if (c === ',') {
      if (depth > 0 && ++commas[depth] >= (object[depth] ? limits.keys : limits.items)) return object[depth] ? 'keys' : 'items';
    } else if (c === '{' || c === '[') {
      if (++depth > limits.depth) return 'depth';
      commas[depth] = 0;
      object[depth] = c === '{';
    } else if ((c === '}' || c === ']') && depth > 0) depth--;
  }
  return undefined;
}

/** The kit's scan of every character: why a text is past a limit, if it is. */
function scannedProblem(src: string, limits: { depth: number; keys: number; containers: number }): string | undefined {
  let depth = 0;
  let keys = 0;
  let containers = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '"') i = closingQuote(src, i + 1);
    else if (c === '{' || c === '[') {
      if (++depth > limits.depth) return `JSON nested deeper than ${limits.depth} levels`;
      if (++containers > limits.containers) return `JSON with more than ${limits.containers} objects and arrays`;
    } else if (c === '}' || c === ']') depth--;
    else if (c === ':' && ++keys > limits.keys) return `JSON with more than ${limits.keys} keys`;
  }
  return undefined;
}

/** Texts made of what the scans look at (brackets, commas, colons, quotes, backslashes) and filler,
 * of every length around the limits. */
const text = fc.array(fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', 'a', ' ', '1'), { maxLength: 120 }).map((cs) => cs.join(''));
const limit = fc.integer({ min: 1, max: 40 });

describe('a text left unread gets the verdict of a scan of every character', () => {
  test.prop([text, limit, limit, limit], { numRuns: 3000 })("the mock's limits of a request, as text and as bytes", (src, depth, keys, items) => {
    const limits = { depth, keys, items };
    expect(bodyShape(src, limits).past).toBe(scannedShape(src, limits));
    expect(bodyShape(Buffer.from(src), limits).past).toBe(scannedShape(src, limits));
  });

  test.prop([text, limit, limit, limit], { numRuns: 3000 })("the kit's limits of an answer, as text and as bytes", (src, depth, keys, containers) => {
    const limits = { depth, keys, containers };
    expect(jsonLimitProblem(src, limits)).toBe(scannedProblem(src, limits));
    expect(jsonLimitProblem(Buffer.from(src), limits)).toBe(scannedProblem(src, limits));
  });
});
