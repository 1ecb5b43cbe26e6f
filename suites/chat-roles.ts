// Sections 2.1 and 2.2: the roles a conversation holds, and the orders it may hold them in. The
// document lists the roles (system or developer, user, assistant, tool) and prescribes no order, so a
// conversation in any of them is a valid request that must be answered. Each role is tried in its
// usual place, streamed and not, and in the orders a server built for one friendly order refuses.
import { notTested, pass, type Axis, type AxisPoint, type Verdict } from '../engine/check.js';
import type { CheckContext } from '../engine/runner.js';
import { shownBy, type ApiPath, type ChatBody, type CheckDef } from './api.js';
import { ask } from './ask.js';
import { answerTo, cutVerdict, readAnswer, unservedVerdict } from './answer.js';
import { eachOwning } from './each.js';
import { MODELS, modelsTaking, STREAM } from './paths.js';
import { askedAfter, BASIC_CAP, basic, basicBody } from './basic.js';

export { basic, basicBody };

const TIME_TOOL = {
  type: 'function',
  function: { name: 'get_time', description: 'The current time of day.', parameters: { type: 'object', properties: {} } },
};
const TIME_CALL = { id: 'call_get_time_1', type: 'function', function: { name: 'get_time', arguments: '{}' } };

type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';
const ROLES: readonly Role[] = ['system', 'developer', 'user', 'assistant', 'tool'];

/** Each role in the smallest conversation where it is valid. Every content is a string (2.2), the
 * assistant turn that carries tool_calls too. */
const CONVERSATIONS: Record<Role, (model: string) => ChatBody> = {
  system: askedAfter({ role: 'system', content: 'You are a concise assistant.' }),
  developer: askedAfter({ role: 'developer', content: 'Answer concisely.' }),
  user: basicBody,
  assistant: askedAfter({ role: 'user', content: 'Say hello in one short sentence.' }, { role: 'assistant', content: 'Hello there!' }),
  // A tool message only answers an assistant's call, whose function the request offers.
  tool: (model) => ({
    model,
    messages: [
      { role: 'user', content: 'What time is it? Use get_time.' },
      { role: 'assistant', content: '', tool_calls: [TIME_CALL] },
      { role: 'tool', tool_call_id: TIME_CALL.id, content: '{"time":"12:00"}' },
    ],
    tools: [TIME_TOOL],
    max_tokens: BASIC_CAP,
  }),
};

/** Where each role's own conversation puts it: the label of its first path of order. */
const USUAL: Record<Role, string> = {
  system: 'system first',
  developer: 'developer first',
  user: 'one user message',
  assistant: 'assistant between users',
  tool: 'tool answering its call',
};

/** Another order of the roles, as a chat template written for one order (a system turn first, then
 * user and assistant in turn) refuses it: "Conversation roles must alternate
 * user/assistant/user/assistant/..." is what Mistral's and Gemma's templates raise, and an engine
 * passes it on as a 400. `with`: a role besides the check's own, whose own conversation must be
 * served for a refusal of this one to be the check's. */
interface Order {
  turns: object[];
  with?: Role;
  /** What it is, for the audit line, and the fault that shows a server refusing it. */
  what: string;
  fault: string;
}

/** The last turn of every order: the smallest question a model serves, as "Say OK." is everywhere
 * else; a refusal is all the rule reads, so the answer need not be long. */
const SAY_OK = { role: 'user', content: 'Say OK.' };
const ORDER_CAP = 16;

const ORDERS: Partial<Record<Role, Record<string, Order>>> = {
  system: {
    'system after user': {
      turns: [
        { role: 'user', content: 'Hello.' },
        { role: 'system', content: 'Answer in one word.' },
      ],
      what: 'a system message after a user turn',
      fault: 'chat-role-system-not-first-refused',
    },
  },
  developer: {
    'developer with system': {
      turns: [
        { role: 'system', content: 'You are a concise assistant.' },
        { role: 'developer', content: 'Answer in one word.' },
      ],
      with: 'system',
      what: 'a developer message after a system message',
      fault: 'chat-role-developer-with-system-refused',
    },
  },
  user: {
    'two user messages': { turns: [{ role: 'user', content: 'Hello.' }], what: 'two user messages in a row', fault: 'chat-role-user-twice-refused' },
  },
  assistant: {
    'assistant first': {
      turns: [{ role: 'assistant', content: 'Hello! What can I do for you?' }],
      what: 'an assistant greeting opening the conversation',
      fault: 'chat-role-assistant-first-refused',
    },
  },
};

const orderBody = (order: Order) => (model: string) => ({ model, messages: [...order.turns, SAY_OK], max_tokens: ORDER_CAP });

/** The orders a role is tried in on a path. The other orders go on the JSON path only: the order is
 * a template's reading of the messages, the same streamed or not, and each would cost one more
 * request per model for the same proof. */
const ordersOf =
  (role: Role): Axis<CheckContext> =>
  async (_ctx, path) => ({
    points: [USUAL[role], ...(path.stream ? [] : Object.keys(ORDERS[role] ?? {}))].map((o): AxisPoint => ({ value: o, label: o })),
  });

/** `a user message`, `an assistant message`. */
const aRole = (role: string) => `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role} message`;

const ROLE_TITLES: Record<Role, string> = {
  system: 'A conversation with a system message, first or after a user turn, is answered',
  developer: 'A conversation with a developer message, first or after a system message, is answered',
  user: 'A conversation of one user message, or of two in a row, is answered',
  assistant: 'A conversation with an assistant message, between two user messages or opening it, is answered',
  tool: "A tool message answering the assistant's tool call (tool_call_id matching) is answered",
};

/** What each role's request proves: the conversation it sends, and what a server that refuses the role answers. */
const ROLE_AUDITS: Record<Role, [string, string[]]> = {
  system: [
    'the basic question (count to ten) after a system message, streamed and not: a server that refuses the system role answers a 4xx where the same question alone (chat.role.user) is served',
    ['chat-role-system-refused'],
  ],
  developer: [
    'the basic question after a developer message, streamed and not: a server that refuses the developer role answers a 4xx where the same question alone is served',
    ['chat-role-developer-refused'],
  ],
  user: [
    'the basic request, one user message, streamed and not: a server that serves a one-message conversation only as one JSON body, or only as a stream, answers the other path a 4xx',
    ['chat-role-user-refused', 'stream-basic-refused'],
  ],
  assistant: [
    "the basic question after a user turn and the assistant's text answer to it, streamed and not: a server that refuses assistant messages without tool_calls answers a 4xx where the basic request is served",
    ['chat-role-assistant-refused'],
  ],
  tool: [
    "a conversation ending in a tool message that answers the assistant's get_time call (tool_call_id matching, the tool declared), streamed and not, to the models that may take tools: a server that refuses tool messages answers a 4xx (a model the catalog does not declare tools for is left not-tested)",
    ['chat-role-tool-refused'],
  ],
};

/** The audit line of a role: its usual conversation, then each other order and what refusing it shows. */
function audit(role: Role): string {
  const orders = Object.values(ORDERS[role] ?? {});
  const more = orders.map(
    (o) =>
      `; and, not streamed, "Say OK." after ${o.what}, an order the document allows (2.1 prescribes none): a server built for one order of turns refuses it${o.with ? `, judged only where the ${o.with} message alone is served` : ''}`,
  );
  return `Sends ${ROLE_AUDITS[role][0]}${more.join('')}; ${shownBy([...ROLE_AUDITS[role][1], ...orders.map((o) => o.fault)])}.`;
}

/** The conversation of a role on a path, and what it is, for messages and labels. */
function conversation(role: Role, path: ApiPath): { body: ChatBody; what: string; order?: Order } {
  const order = ORDERS[role]?.[String(path.order)];
  if (!order) return { body: CONVERSATIONS[role](path.model!), what: `a valid conversation with ${aRole(role)}` };
  return { body: orderBody(order)(path.model!), what: `a valid conversation of ${order.what}`, order };
}

/** Whether the other role an order holds is answered in its own conversation on the model: a
 * refusal of that role is its own check's failure, not this order's. */
async function otherRoleServed(ctx: CheckContext, path: ApiPath, role: Role): Promise<Verdict | undefined> {
  const a = readAnswer(await ask(ctx, { model: path.model }, CONVERSATIONS[role](path.model!), `conversation with ${aRole(role)}`), false);
  if (a.unserved !== undefined) return unservedVerdict(a);
  if (a.cut) return cutVerdict(a);
  return a.broken.served === undefined ? undefined : notTested(`the ${role} message alone was not answered either (${a.broken.served}): see chat.role.${role}`, `chat.role.${role}`);
}

const roleCheck = (role: Role): CheckDef => ({
  id: `chat.role.${role}`,
  title: ROLE_TITLES[role],
  section: '2.1, 2.2',
  level: 'must',
  audit: audit(role),
  // A tool message needs a tool call, so only models that may take tools.
  paths: { stream: STREAM, model: role === 'tool' ? modelsTaking('tools') : MODELS, order: ordersOf(role) },
  // Served as asked; the basic stream's events are stream.events' (it reads that very stream).
  reads: role === 'user' ? ['served'] : ['served', 'events'],
  // The owner of `served`: under load, every answer that came with a 2xx is whole and parses.
  ...(role === 'user' ? { onEach: eachOwning('served') } : {}),
  async run(ctx, path) {
    const { body, what, order } = conversation(role, path);
    if (order?.with) {
      const blocked = await otherRoleServed(ctx, path, order.with);
      if (blocked) return blocked;
    }
    // The basic request is this very conversation: its being served is chat.role.user's to judge.
    const ex = !order && role === 'user' ? await basic(ctx, path) : await ask(ctx, path, body, order ? `conversation of ${order.what}` : `conversation with ${aRole(role)}`);
    const got = await answerTo(ctx, ex, path, role === 'user' ? ['served'] : ['served', 'events'], { what, feature: role === 'tool' ? 'tools' : undefined });
    return got.verdict ?? pass();
  },
});

/** The checks of the roles, in the order of 2.2. */
export const ROLE_CHECKS: CheckDef[] = ROLES.map(roleCheck);
