// What the flows ask, the same in every client: the prompts, the weather tool, the person schema, and
// each flow's max_tokens, sized as the run sizes its requests (docs/verdicts.md): the smallest cap
// that proves the flow, and where a reasoning model's hidden tokens cut the answer short, one more
// request with room for them, measured from the first answer.
import { ROOM } from '../suites/answer.js';

export const PROMPTS = {
  /** A short answer that ends by itself: the run's basic question. */
  count: 'Count from one to ten in words.',
  /** An answer the cap cuts, and a stream long enough to abort. */
  essay: 'Write a long, detailed essay about the history of computing.',
  weather: 'What is the weather in Paris?',
  person: 'Invent a person: a name, an age and a few tags.',
  /** Ends at the stop sequence where a model repeats it (one that does not is judged on what it said). */
  repeat: 'Repeat exactly: alpha bravo charlie delta echo foxtrot golf hotel',
  ok: 'Say OK.',
} as const;

/** The word `stop` ends the repeated text before. */
export const STOP_WORD = 'echo';
/** Five sequences where the document allows four (section 8): an invalid body every client sends as is. */
export const FIVE_STOPS = ['w1', 'w2', 'w3', 'w4', 'w5'];

/** max_tokens of each flow before any room for reasoning. */
export const CAPS = {
  /** The run's basic cap: the count to ten with room for a reasoning model's thinking. */
  completion: 64,
  stream: 64,
  /** A tool call and structured output, as the run asks them (ROOM). */
  tools: ROOM[0],
  structured: ROOM[0],
  /** The answer to the tool result: a sentence. */
  toolResult: 64,
  stop: 64,
  /** An essay cut here: a handful of tokens proves it. */
  maxTokens: 16,
  abort: 64,
  /** A refusal or a served request whose text nobody reads. */
  small: 16,
} as const;

/** A cap with the room a first answer showed it needs: twice the reasoning it counted, or the run's
 * largest room where it counted none. */
export const roomFor = (cap: number, reasoning: number | undefined): number => (reasoning ? cap + 2 * reasoning : ROOM[ROOM.length - 1]);

/** Asks with `cap`; an answer cut by the limit before the flow could judge it (`cut`) is asked once
 * more, with the room the first one showed. */
export async function withRoom<T>(cap: number, ask: (cap: number) => Promise<T>, cut: (answer: T) => { cut: boolean; reasoning?: number }): Promise<T> {
  const first = await ask(cap);
  const seen = cut(first);
  return seen.cut ? ask(roomFor(cap, seen.reasoning)) : first;
}

/** get_weather's parameters, as JSON Schema (the tool of the run's tools suite). */
export const WEATHER_PARAMETERS = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city', 'unit', 'days'],
  additionalProperties: false,
} as const;
export const WEATHER_DESCRIPTION = 'Get the weather forecast for a city';
/** What the flows' tool answers. */
export const WEATHER_RESULT = JSON.stringify({ forecast: 'sunny', high: 21, low: 12 });

/** The person structured output asks for, built with the zod the client was loaded with. */
export const personSchema = (z: any) => z.object({ name: z.string(), age: z.number().int().min(0), tags: z.array(z.string()) });
