// Every field of a chat request (2.1), with the one check a refusal of it is charged to. A refused
// request is located by asking again with less (suites/ask.ts), never by reading the error's words:
// this registry says which fields may be left out to find the refused one, which of them a check may
// be judged without, whose rule a refusal breaks, and whether the model owes taking it at all. Its
// keys are the request schema's properties, no more and no fewer (test/suites/fields.test.ts), and
// the kit sends no field outside it (api.ts chatSpec).
export interface FieldRule {
  /** `required`: what every request is (model, messages), never left out. `path`: what the path is
   * (stream), never left out. `optional`: left out, one at a time, to find which one was refused. */
  kind: 'required' | 'path' | 'optional';
  /** Sent for the kit's own ends (a cap on its cost, a reproducible answer, usage to share a stream),
   * not because a rule is about it: a check that is not about it is judged on the request served
   * without it ("judged with less"). A field a rule is about (stop, tools) is never left out to judge. */
  convenience?: true;
  /** The check whose rule a refusal of this value breaks. */
  owner(value: unknown): string;
  /** Who makes a model take it: `document`, every model (a limit of section 8, the documented way of
   * 6.2, what every request is); `catalog`, a model whose entry declares it (section 8: "per-model
   * parameter support ... declared in the public catalog"), elsewhere a refusal breaks no rule (4.1
   * leaves unsupported parameters open). */
  owed: 'document' | 'catalog';
  /** The point of the owner's own axes the refusal is charged at (parameters.in-range: its parameter). */
  at?(field: string): Record<string, string>;
}

const PARAMETERS = 'parameters.in-range';
/** A declared parameter's own path of parameters.in-range. */
const itsPath = (field: string) => ({ parameter: field });
const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

export const FIELDS: Readonly<Record<string, FieldRule>> = {
  // A listed model that chat refuses is the list's failure; a conversation refused, the basic one's.
  model: { kind: 'required', owner: () => 'models.ids-usable', owed: 'document' },
  messages: { kind: 'required', owner: () => 'chat.role.user', owed: 'document' },
  // stream: false said aloud is chat.stream-false's (a JSON answer owed); a stream asked, stream.events'.
  stream: { kind: 'path', owner: (v) => (v === false ? 'chat.stream-false' : 'stream.events'), owed: 'document' },
  // 6.2: the documented way to ask for usage in a stream; the kit asks it on every stream to share one.
  stream_options: { kind: 'optional', convenience: true, owner: () => 'usage.stream-present', owed: 'document' },
  // Section 8: max_tokens caps every completion; the kit sends the smallest cap that proves a rule.
  max_tokens: { kind: 'optional', convenience: true, owner: () => 'chat.max-tokens', owed: 'document' },
  max_completion_tokens: { kind: 'optional', convenience: true, owner: () => PARAMETERS, owed: 'catalog', at: itsPath },
  temperature: { kind: 'optional', convenience: true, owner: () => PARAMETERS, owed: 'catalog', at: itsPath },
  top_p: { kind: 'optional', convenience: true, owner: () => PARAMETERS, owed: 'catalog', at: itsPath },
  seed: { kind: 'optional', convenience: true, owner: () => PARAMETERS, owed: 'catalog', at: itsPath },
  stop: { kind: 'optional', owner: (v) => (Array.isArray(v) ? 'stop.array' : 'stop.string'), owed: 'catalog' },
  tools: { kind: 'optional', owner: () => 'tools.finish-reason', owed: 'catalog' },
  // The forced forms are tools.required's and tools.named's (conventions: should), "none" tools.none's;
  // "auto", which every tool request could have left unsaid, is tools.finish-reason's.
  tool_choice: {
    kind: 'optional',
    owner: (v) => (v === 'required' ? 'tools.required' : v === 'none' ? 'tools.none' : isObject(v) ? 'tools.named' : 'tools.finish-reason'),
    owed: 'catalog',
  },
  parallel_tool_calls: { kind: 'optional', owner: () => PARAMETERS, owed: 'catalog', at: itsPath },
  response_format: { kind: 'optional', owner: (v) => (isObject(v) && v.type === 'json_schema' ? 'structured.json-schema' : 'structured.json-object'), owed: 'catalog' },
  reasoning_effort: { kind: 'optional', owner: () => PARAMETERS, owed: 'catalog', at: itsPath },
  service_tier: { kind: 'optional', owner: () => PARAMETERS, owed: 'catalog', at: itsPath },
};

/** The fields of a body the registry does not know: a request of the kit carrying one has no check to
 * charge its refusal to, which is the kit's own defect. */
export const unowned = (body: Record<string, unknown>): string[] => Object.keys(body).filter((k) => !Object.hasOwn(FIELDS, k));

/** The fields of a body that may be left out to locate a refusal, in the body's order. */
export const optionalIn = (body: Record<string, unknown>): string[] => Object.keys(body).filter((k) => FIELDS[k]?.kind === 'optional');

/** Whether a model whose catalog entry declares `declared` (its supported_parameters, or undefined
 * with no entry) owes taking `field` at `value`: an enum only its declared values (a string among
 * them; the object form of tool_choice is declared with the field, as an enum lists strings). */
export function owes(field: string, value: unknown, declared: Record<string, { type?: unknown; values?: unknown }> | undefined): boolean {
  const rule = FIELDS[field];
  if (!rule) return false;
  if (rule.owed === 'document') return true;
  const d = declared?.[field];
  if (!d) return false;
  return d.type !== 'enum' || !Array.isArray(d.values) || typeof value !== 'string' || d.values.includes(value);
}
