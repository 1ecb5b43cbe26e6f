// The order a session tries requests in: first a list chosen for breadth (one wrong type for each field
// of 2.1; one valid request carrying the rare inputs that break servers, one carrying legal JSON that
// parsers reject; then each kind of invalid and edge request once), then requests drawn at random
// from every kind, for every model under test. A short session (the pass inside `conformance run`)
// is the start of the list.
import fc from 'fast-check';
import { RawJson, type FuzzCase } from './case.js';
import { costlyEdgeCases, edgeCases, megabyte, nested, withContent } from './edge.js';
import { FIELDS, wrongTypes, type Field, type JsonType } from './fields.js';
import { A, invalidCases, refused } from './invalid.js';
import { PAST_INT32 } from './numbers.js';
import { rangeOf, type ModelSpace, type Space } from './space.js';
import { asciiPiece, astral, longText, LONG_LENGTHS, loneSurrogate, textOf } from './text.js';
import { smallBody, validBody } from './valid.js';

/** The wrong type tried first: a number or a boolean sent as text is the commonest slip of a client
 * (and what lax servers coerce); a string field gets a number. */
const PREFERRED: JsonType[] = ['string', 'integer', 'boolean', 'object', 'array', 'null'];

/** The wrong value of a type, for the breadth list: text that a lax parser would read as the right
 * type; for messages, the errors suite's own request (errors.messages-not-array sends it too). */
function breadthValue(f: Field, t: JsonType): unknown {
  if (t === 'string') return f.name === 'messages' ? 'hello' : f.types.has('boolean') ? 'true' : f.types.has('integer') ? '1' : f.types.has('array') ? '[]' : '{}';
  return { integer: 1, boolean: true, object: {}, array: [], null: null, number: 1.5 }[t];
}

const wrongTypeOf = (m: ModelSpace, f: Field): FuzzCase => {
  const t = PREFERRED.find((p) => wrongTypes(f).includes(p)) ?? wrongTypes(f)[0];
  return refused(`${f.name} as ${A[t]}`, { ...smallBody(m), [f.name]: breadthValue(f, t) }, f.name === 'model');
};

/** Present when generated, left out first when shrunk: a breadth case carries every rare input, and
 * its shrinking keeps only those the failure needs. */
const present = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 ** 30 });

/** One valid request with the rare inputs: text outside the BMP, control characters, a string past
 * 4 KiB in its prompt and one past 64 KiB as a stop sequence (no prompt grows by it), an integer past
 * 32 bits as its seed, streamed with usage; each where the model declares the field. The 64 KiB
 * string comes before the 4 KiB one: shrinking leaves it out first, so a server that breaks past
 * 4 KiB is shown the 4 KiB string alone. */
function rareValid(m: ModelSpace): fc.Arbitrary<FuzzCase> {
  const takes = (name: string) => !m.params || name in m.params;
  const { min, max } = rangeOf(m, 'seed', { min: -(2 ** 63), max: 2 ** 63 - 1 });
  const seeds = PAST_INT32.filter((e) => e >= min && e <= max);
  return fc
    .record({
      astral: present(textOf(astral, 1, 4)),
      control: present(
        textOf(
          fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
          1,
          3,
        ),
      ),
      huge: present(longText(LONG_LENGTHS[1], LONG_LENGTHS[1] + 1024, asciiPiece)),
      long: present(longText(LONG_LENGTHS[0], LONG_LENGTHS[0] + 1024, asciiPiece)),
      seed: present(seeds.length ? fc.constantFrom(...seeds) : fc.constant(undefined)),
      stream: present(fc.constant(true)),
    })
    .map((r) => {
      const body = withContent(smallBody(m), [r.astral, r.control, r.long].filter((s) => s !== undefined).join(' ') || 'Say OK.');
      if (r.huge !== undefined && takes('stop')) body.stop = [r.huge];
      if (r.seed !== undefined && takes('seed')) body.seed = r.seed;
      if (r.stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
      return { expect: 'served', what: 'a valid request with rare inputs', body };
    });
}

/** One request of legal JSON that parsers reject: a lone surrogate, model written twice, nesting a
 * thousand deep, a seed past 64 bits. */
function rareEither(m: ModelSpace): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      lone: present(textOf(loneSurrogate, 1, 2)),
      duplicate: present(fc.constant(true)),
      nesting: present(fc.constant(1_000)),
      seed: present(fc.constant('18446744073709551616')),
    })
    .map((r): FuzzCase => {
      const body = withContent(smallBody(m), `Say OK.${r.lone ?? ''}`);
      if (r.nesting) body.x_conformance_nested = nested(r.nesting);
      if (r.seed) body.seed = new RawJson(r.seed);
      return { expect: 'either', what: 'legal JSON that parsers reject', body, ...(r.duplicate ? { duplicate: 'model' } : {}) };
    });
}

const valid = (m: ModelSpace) => validBody(m).map((body): FuzzCase => ({ expect: 'served', what: 'a valid request', body }));

export interface Cases {
  /** Tried first, in order, each once. */
  breadth: fc.Arbitrary<FuzzCase>[];
  /** Drawn from once the list is done. */
  random: fc.Arbitrary<FuzzCase>;
}

/** A case sent to a model nobody lists: whatever else it is, it is owed a refusal. */
const toNoModel = (arb: fc.Arbitrary<FuzzCase>) => arb.map((c): FuzzCase => ({ ...c, expect: 'refused', aboutModel: true, what: `${c.what}, to a model nobody lists` }));

export function casesFor(space: Space): Cases {
  if (space.noModel) {
    const { breadth, random } = casesFor({ models: space.models });
    return { breadth: breadth.map(toNoModel), random: toNoModel(random) };
  }
  const first = space.models[0];
  const ids = space.models.map((m) => m.id);
  const kinds = (m: ModelSpace) => ({ invalid: invalidCases(m, ids), edge: edgeCases(m), costly: costlyEdgeCases(m) });
  const mine = kinds(first);
  // After the pass's start, each kind of invalid and edge request once, a valid request every third.
  const kindsOnce = [...mine.invalid, ...mine.edge, ...mine.costly, megabyte(first)];
  const rest = kindsOnce.flatMap((arb, i) => (i % 2 ? [arb] : [valid(first), arb]));
  const breadth = [...FIELDS.map((f) => fc.constant(wrongTypeOf(first, f))), rareValid(first), rareEither(first), ...rest];
  const random = fc.oneof(
    ...space.models.map((m) => {
      const k = m === first ? mine : kinds(m);
      return fc.oneof(
        { arbitrary: valid(m), weight: 50 },
        { arbitrary: fc.oneof(...k.invalid), weight: 40 },
        { arbitrary: fc.oneof(...k.edge), weight: 9 },
        { arbitrary: fc.oneof(...k.costly), weight: 1 },
      );
    }),
  );
  return { breadth, random };
}
