// Section 4.1 rule 1 and section 7: requests the service cannot serve, with a valid key, and the
// answers they get.
import { enumAt, validator } from '../schemas/index.js';
import { baseline, chat, describe, is2xx, is4xx, type ApiCheck, type ChatBody } from './api.js';
import { combine, fail, notTested, pass, type Verdict } from './harness/check.js';
import { bodyJson, type Exchange } from './harness/exchanges.js';
import type { CheckContext } from './harness/runner.js';

const SAY_OK = [{ role: 'user', content: 'Say OK.' }];
const NO_SUCH_MODEL = 'conformance-no-such-model';
const ROLES = enumAt('request#/$defs/message/properties/role');
const UNKNOWN_ROLE = 'wizard';
/** JSON cut short: the server cannot know the model or the messages, only that the body is broken. */
const NOT_JSON = '{"model": "x", "messages": [';

/** One faulty request. Those that need a real model use one, so that the model is not the fault. */
interface Case {
  what: string;
  body(model: string): ChatBody | string;
  needsModel?: boolean;
}

const CASES = {
  missingModel: { what: 'a request without model', body: () => ({ messages: SAY_OK, max_tokens: 16 }) },
  missingMessages: { what: 'a request without messages', body: (model) => ({ model, max_tokens: 16 }), needsModel: true },
  invalidJson: { what: 'a body that is not JSON', body: () => NOT_JSON },
  messagesNotArray: { what: 'messages as a string', body: (model) => ({ model, messages: 'hello', max_tokens: 16 }), needsModel: true },
  unknownRole: { what: `a message with role "${UNKNOWN_ROLE}"`, body: (model) => ({ model, messages: [{ role: UNKNOWN_ROLE, content: 'Say OK.' }], max_tokens: 16 }), needsModel: true },
  unknownModel: { what: `model "${NO_SUCH_MODEL}"`, body: () => ({ model: NO_SUCH_MODEL, messages: SAY_OK, max_tokens: 16 }) },
} satisfies Record<string, Case>;

/** The answer to a faulty request, or why it proves nothing here. */
async function answer(ctx: CheckContext, c: Case): Promise<{ ex?: Exchange; problem?: string }> {
  // A valid request must be served first: a key or URL that is refused everywhere answers 4xx to anything.
  const { model, problem } = await baseline(ctx);
  if (problem) return { problem: `${problem}: an error answer proves nothing without a served request` };
  if (c.needsModel && !model) return { problem: `${c.what} needs a model the key can use; name one with --model` };
  return { ex: await chat(ctx, c.body(model ?? NO_SUCH_MODEL), { label: c.what }) };
}

/** The request is not served: any answer but 2xx. */
function refusedCheck(id: string, c: Case, title: string): ApiCheck {
  return {
    id,
    suite: 'errors',
    title,
    section: '4.1',
    level: 'must',
    async run(ctx) {
      const { ex, problem } = await answer(ctx, c);
      if (!ex) return notTested(problem!);
      if (ex.status === undefined) return fail(`${c.what}: expected an error answer, got ${describe(ex)}`);
      return is2xx(ex) ? fail(`${c.what} was served (${describe(ex)}); the request is incomplete without it`) : pass();
    },
  };
}

const client4xx = (c: Case, ex: Exchange): Verdict =>
  is4xx(ex) ? pass() : fail(`${c.what} answered ${describe(ex)}, not a 4xx: the fault is the client's`);

/** The request gets a 4xx: the client's fault, told as such. */
function clientErrorCheck(id: string, cases: Case[], meta: Pick<ApiCheck, 'title' | 'section' | 'convention'>): ApiCheck {
  return {
    id,
    suite: 'errors',
    level: 'should',
    ...meta,
    async run(ctx) {
      const verdicts = await Promise.all(
        cases.map(async (c) => {
          const { ex, problem } = await answer(ctx, c);
          return ex ? client4xx(c, ex) : notTested(problem!);
        }),
      );
      return combine(verdicts);
    },
  };
}

export const missingModel = refusedCheck('errors.missing-model', CASES.missingModel, 'A request without model is not served: it answers an error');
export const missingMessages = refusedCheck('errors.missing-messages', CASES.missingMessages, 'A request without messages is not served: it answers an error');

export const missingField4xx = clientErrorCheck('errors.missing-field-4xx', [CASES.missingModel, CASES.missingMessages], {
  title: 'A request without model or messages answers a 4xx',
  section: '4.1, 7',
  convention: 'Section 7 does not show the status codes; an incomplete request is the client\'s error, 4xx (400) by convention.',
});

export const invalidJson = clientErrorCheck('errors.invalid-json', [CASES.invalidJson], {
  title: 'A body that is not JSON answers a 4xx',
  section: '7',
  convention: 'Section 7 does not show the status codes; a body that cannot be parsed is the client\'s error, 4xx (400) by convention.',
});

export const messagesNotArray = clientErrorCheck('errors.messages-not-array', [CASES.messagesNotArray], {
  title: 'messages that is not an array answers a 4xx',
  section: '7',
  convention: 'Section 7 does not show the status codes; a field of the wrong type is the client\'s error, 4xx (400) by convention.',
});

export const unknownRole = clientErrorCheck('errors.unknown-role', [CASES.unknownRole], {
  title: `A message whose role is none of ${ROLES.join(', ')} answers a 4xx`,
  section: '2.2, 7',
  convention: 'Section 7 does not show the status codes; a role outside the list of 2.2 is the client\'s error, 4xx (400) by convention.',
});

export const unknownModel = clientErrorCheck('errors.unknown-model', [CASES.unknownModel], {
  title: 'A model id that does not exist answers a 4xx',
  section: '4.1, 7',
  convention: 'Section 7 does not show the status codes; an unknown model is the client\'s error, 4xx (404 or 400) by convention.',
});

const validError = validator('error');

export const errorBody: ApiCheck = {
  id: 'errors.error-body',
  suite: 'errors',
  title: 'An error answer carries a JSON error body: {"error": {"message": ...}} with a message',
  section: '7',
  level: 'should',
  convention: 'Section 7 does not show the error body; the convention is the OpenAI-compatible {"error": {"message", "type", "param", "code"}}.',
  async run(ctx) {
    const answers = await Promise.all(Object.values(CASES).map(async (c: Case) => ({ c, ...(await answer(ctx, c)) })));
    const errors = answers.filter((a): a is typeof a & { ex: Exchange } => a.ex !== undefined && a.ex.status !== undefined && !is2xx(a.ex));
    if (!errors.length) {
      const problems = answers.map((a) => a.problem).filter((p) => p !== undefined);
      return notTested(problems.length ? [...new Set(problems)].join('; ') : 'no request of this suite got an error answer');
    }
    const wrong = errors.flatMap(({ c, ex }) => {
      const json = bodyJson(ex);
      if (!json.ok) return [`${c.what} (${describe(ex)}): ${json.error}`];
      const v = validError(json.value);
      return v.ok ? [] : [`${c.what} (${describe(ex)}): the error body does not match the convention: ${v.errors.join(', ')}`];
    });
    return wrong.length ? fail(wrong.join('; ')) : pass();
  },
};

export const ERRORS: ApiCheck[] = [missingModel, missingMessages, missingField4xx, invalidJson, messagesNotArray, unknownRole, unknownModel, errorBody];
