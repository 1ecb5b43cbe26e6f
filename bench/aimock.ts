// aimock (@copilotkit/aimock, CopilotKit's LLM mock server, MIT): the peer the throughput bench measures
// beside the mock and the ceiling. It serves fixtures, not generated text, so it is given one: the text
// the mock answers the bench's request with, matched on the user message, so that both send the same
// words. Distinct requests (a `seed` each) match the same fixture: aimock reads no seed.
import { readFileSync } from 'node:fs';
import { capture, mockConfig, SMALL, SMALL_STREAM } from './fixtures.js';

export const AIMOCK = '@copilotkit/aimock';

export interface AimockFixture {
  userMessage: string;
  content: string;
  /** Characters an event: aimock cuts a stream's text by length, the mock by token. */
  chunkSize: number;
  /** The mock's content events for the same stream, which chunkSize comes closest to. */
  mockContentEvents: number;
}

/** The fixture, from the mock's own replies (fixtures.ts capture): computed, so it follows the mock. */
export function aimockFixture(): AimockFixture {
  const config = mockConfig(false);
  const json = JSON.parse(capture(config, SMALL).body!) as { choices: { message: { content: string } }[] };
  const content = json.choices[0].message.content;
  const pieces = capture(config, SMALL_STREAM)
    .frames!.flatMap((f) => f.bytes.split('\n\n'))
    .filter((e) => e.startsWith('data: {'))
    .map((e) => (JSON.parse(e.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content)
    .filter((c): c is string => !!c);
  if (pieces.join('') !== content) throw new Error('the mock streams another text than it answers in JSON: one aimock fixture cannot match both');
  let chunkSize = 1;
  const off = (n: number) => Math.abs(Math.ceil(content.length / n) - pieces.length);
  for (let n = 2; n <= content.length; n++) if (off(n) < off(chunkSize)) chunkSize = n;
  return { userMessage: SMALL.messages[0].content, content, chunkSize, mockContentEvents: pieces.length };
}

/** The installed version; throws, saying what is missing, where aimock is not installed. */
export function aimockVersion(): string {
  let entry: string;
  try {
    entry = import.meta.resolve(AIMOCK);
  } catch (e) {
    throw missing(e);
  }
  // Its exports map leaves out package.json; the entry point is dist/index.js.
  return (JSON.parse(readFileSync(new URL('../package.json', entry), 'utf8')) as { version: string }).version;
}

/** Starts aimock on 127.0.0.1, a free port, with the bench's fixture; resolves to the port. */
export async function startAimock(): Promise<number> {
  let LLMock: typeof import('@copilotkit/aimock').LLMock;
  try {
    ({ LLMock } = await import('@copilotkit/aimock'));
  } catch (e) {
    throw missing(e);
  }
  const f = aimockFixture();
  // The defaults otherwise: no latency, no chaos, no auth (it takes the bench's key as any other),
  // its journal capped at 1,000 entries, silent.
  const mock = new LLMock({ host: '127.0.0.1', port: 0 });
  mock.onMessage(f.userMessage, { content: f.content }, { chunkSize: f.chunkSize });
  await mock.start();
  return mock.port;
}

function missing(e: unknown): Error {
  return new Error(`the throughput bench measures ${AIMOCK} side by side with the mock, and it cannot be loaded (a devDependency: npm install): ${(e as Error).message}`);
}
