// The mix a load sends: the kit's own requests, built by the suites whose rules they prove (as a run
// builds them: fitted to the catalog, streams asking include_usage), each with the smallest
// max_tokens that proves its rule; or, with --max-tokens, the essay at that cap (a workload of its own).
import type { RequestSpec } from '../../engine/http.js';
import type { CheckContext } from '../../engine/runner.js';
import { asked, chatSpec, type ChatBody } from '../api.js';
import { ROOM } from '../answer.js';
import { refusedFields, withoutRefused } from '../ask.js';
import { FIELDS } from '../fields.js';
import { basicBody, essayBody } from '../chat.js';
import { knownOf, type Kind, type Known } from '../each.js';
import { takes } from '../paths.js';
import { seededBody, stopUnderLoad } from '../stop.js';
import { jsonSchemaBody } from '../structured.js';
import { toolBody } from '../tools.js';

export interface Item {
  kind: Kind;
  stream: boolean;
  /** `basic chat completion, streamed`: names the request in evidence and in the slowest's place. */
  label: string;
  body: ChatBody;
  spec: RequestSpec;
}

export interface Workload {
  items: Item[];
  known: Known;
  /** The reproducible answer alone, which the seeded request is held to, when it reproduced. */
  seeded?: string;
  /** What the mix leaves out, and why (a model that takes no tools, an answer that does not reproduce). */
  notes: string[];
}

/** The request fields each kind's rules are about: never left out of it. */
const SUBJECT: Record<Kind, readonly string[]> = {
  basic: [],
  capped: ['max_tokens'],
  long: ['max_tokens'],
  stop: ['stop'],
  tools: ['tools', 'tool_choice'],
  'json-schema': ['response_format'],
  seeded: ['seed'],
};

const LABELS: Record<Kind, string> = {
  basic: 'basic chat completion',
  capped: 'long essay with the smallest max_tokens',
  stop: 'stop sequence',
  tools: 'tool call (tool_choice "required")',
  'json-schema': 'response_format json_schema',
  seeded: 'reproducible request (seed 7)',
  long: 'long essay',
};

/** The mix for `model`: each kind streamed and not where its rules read both ways. */
export async function workloadFor(ctx: CheckContext, model: string, maxTokens?: number): Promise<Workload> {
  const known = await knownOf(ctx, model);
  const notes: string[] = [];
  const kinds: [Kind, ChatBody, boolean[]][] = [];
  let seeded: string | undefined;
  if (maxTokens !== undefined) kinds.push(['long', essayBody(model, maxTokens), [false, true]]);
  else {
    kinds.push(['basic', basicBody(model), [false, true]], ['capped', essayBody(model), [false, true]]);
    if (await takes(ctx, model, 'tools')) kinds.push(['tools', toolBody(model), [false, true]]);
    else notes.push(`${model} does not declare tools: the mix has no tool call`);
    if (await takes(ctx, model, 'response_format')) kinds.push(['json-schema', jsonSchemaBody(model)(ROOM[0]), [false]]);
    else notes.push(`${model} does not declare response_format: the mix has no json_schema`);
    const stop = (await takes(ctx, model, 'stop')) ? await stopUnderLoad(ctx, model) : { problem: `${model} does not declare stop` };
    if ('problem' in stop) notes.push(`no stop sequence nor seeded request in the mix: ${stop.problem}`);
    else {
      known.refs.stop = stop.known;
      seeded = stop.known.ref.text;
      kinds.push(['stop', stop.body, [false, true]], ['seeded', seededBody(model), [false]]);
    }
  }
  const items: Item[] = [];
  // What working the mix out found the model refusing (asking again with less, suites/ask.ts): a
  // field sent for the kit's own ends is left out, as the run judges with less; a kind whose rule is
  // about the refused field is left out of the mix, its owner's to report in a run.
  const refused = await refusedFields(ctx, model);
  for (const [kind, body, ways] of kinds) {
    const about = SUBJECT[kind].filter((f) => refused.has(f));
    if (about.length) {
      notes.push(`no ${LABELS[kind]} in the mix: ${model} refuses ${about.join(' and ')} (see ${about.map((f) => FIELDS[f].owner(body[f])).join(', ')} in a run)`);
      continue;
    }
    for (const stream of ways) {
      const { body: sent, left } = await withoutRefused(ctx, await asked(ctx, { model, stream }, body), SUBJECT[kind]);
      if (left.length) notes.push(`${LABELS[kind]}${stream ? ', streamed' : ''} is sent without ${left.join(', ')}, which ${model} refuses`);
      items.push({ kind, stream, label: `${LABELS[kind]}${stream ? ', streamed' : ''}`, body: sent, spec: chatSpec(ctx, sent) });
    }
  }
  return { items, known, seeded, notes };
}
