// The one ordinary request: the basic question, shared by every suite that needs an ordinary answer,
// and by the reader of answers as the control a stream is asked again with (answer.ts).
import type { CheckContext } from '../engine/runner.js';
import type { ApiPath, ChatBody } from './api.js';
import { ask } from './ask.js';

const COUNT_PROMPT = 'Count from one to ten in words.';
/** The cap of the basic question: counting to ten in words ends well within it. */
export const BASIC_CAP = 64;

/** The basic question after the turns of a conversation, within the basic cap. */
export const askedAfter =
  (...turns: object[]) =>
  (model: string): ChatBody => ({ model, messages: [...turns, { role: 'user', content: COUNT_PROMPT }], max_tokens: BASIC_CAP });

/** The one ordinary request: short, and sure to end on its own well within its cap. */
export const basicBody = askedAfter();
export const basic = (ctx: CheckContext, path: ApiPath) => ask(ctx, path, basicBody(path.model!), 'basic chat completion');
