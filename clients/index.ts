// The clients the kit drives, in the order of the matrix: the official openai SDK, the AI SDK with its
// OpenAI-compatible provider, LangChain's ChatOpenAI, and the openai SDK again in a real page. A client is added here (docs/clients.md says how).
import type { AnyClient } from './flow.js';
import { AI_SDK } from './ai-sdk.js';
import { BROWSER } from './browser.js';
import { LANGCHAIN } from './langchain.js';
import { OPENAI } from './openai.js';

export const CLIENTS: readonly AnyClient[] = [OPENAI, AI_SDK, LANGCHAIN, BROWSER];

export { FLOWS } from './flow.js';
