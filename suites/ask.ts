// A chat request the kit expects served, and what it does when it is refused: it asks again with
// less, as a fuzzer shrinks a failure, to learn which field was refused, never by reading the error's
// words. The same request is sent without the optional fields (suites/fields.ts) until it is served,
// then with each put back in turn, so what is left out is a smallest set whose removal serves it: the
// refused fields. Each belongs to one check (its owner), which fails where the model owes taking it;
// a check that is not about the field is judged on the answer served without it ("judged with
// less"), and one that is, is blocked by its owner. Only refused requests are asked again, and what
// a model refused is remembered for the run, so the next refusal of the same field costs one request.
import { asked, catalog, chat, declaredParameters, describe, errorText, is4xx, ABOUT, type ApiPath, type Auth, type ChatBody } from './api.js';
import { FIELDS, optionalIn, owes } from './fields.js';
import { sentJson, type Exchange } from '../engine/exchanges.js';
import type { CheckContext } from '../engine/runner.js';

/** A field of a refused request found refused by asking again without it. */
export interface RefusedField {
  field: string;
  value: unknown;
  /** The check whose rule the refusal breaks (FIELDS), and whether the model owes taking it. */
  owner: string;
  owed: boolean;
  /** `temperature 0 was refused: status 400 (...)`, for messages. */
  why: string;
}

/** Where a refused request's refusal lies: the fields whose removal got it served, and that answer. */
export interface Located {
  fields: RefusedField[];
  served: Exchange;
}

/** Statuses by which a server says what was asked is not served, whatever the request holds: a key
 * (401, 403), a route or model (404, 405), time (408), a rate (429). No field of it is to blame. */
const NOT_ABOUT_FIELDS = new Set([401, 403, 404, 405, 407, 408, 429]);

/** Whether an answer refuses the request for what it holds: a 4xx of another kind. A server error is
 * no refusal (fuzz.no-5xx and the rule whose request it is say so), whatever its body. */
export function refusesContent(ex: Exchange): boolean {
  return is4xx(ex) && !NOT_ABOUT_FIELDS.has(ex.status!);
}

const served = (ex: Exchange) => ex.status !== undefined && ex.status >= 200 && ex.status < 300;

/** After this many refusals of a model that no field explained (the request without every optional
 * field refused too), its refusals are not asked again: they are about what every request holds. */
const FRUITLESS = 3;

/** The fields that cap what is generated: left out last, as a request without them may ask for more
 * than the kit ever asks. */
const isCap = (field: string) => field === 'max_tokens' || field === 'max_completion_tokens';

/** What the run learned of each model's refusals, shared by every check. */
class Refusals {
  /** Fields found refused, by model: the next refusal tries without them first. */
  readonly refused = new Map<string, Set<string>>();
  readonly fruitless = new Map<string, number>();
  /** Each refused exchange's experiment, shared by every check that asked it. */
  readonly located = new WeakMap<Exchange, Promise<Located | undefined>>();
}

const refusals = (ctx: CheckContext) => ctx.memo('refused-fields', async () => new Refusals());

/** Each refused exchange's location once found: read by the answer's readers (answer.ts), which
 * have the exchange and no run at hand. */
const LOCATED = new WeakMap<Exchange, Located>();
export const locatedOf = (ex: Exchange): Located | undefined => LOCATED.get(ex);

const without = (body: ChatBody, fields: readonly string[]): ChatBody => Object.fromEntries(Object.entries(body).filter(([k]) => !fields.includes(k)));

const shown = (field: string, value: unknown) => {
  const v = JSON.stringify(value);
  return `${field}${v !== undefined && v.length <= 40 ? ` ${v}` : ''}`;
};

/** The experiment on a refused exchange: undefined when the refusal is not about its optional fields. */
function locate(ctx: CheckContext, ex: Exchange, auth: Auth | undefined): Promise<Located | undefined> {
  return refusals(ctx).then((r) => {
    let p = r.located.get(ex);
    if (!p) {
      p = experiment(ctx, ex, auth, r).then((found) => {
        if (found) LOCATED.set(ex, found);
        return found;
      });
      r.located.set(ex, p);
    }
    return p;
  });
}

async function experiment(ctx: CheckContext, ex: Exchange, auth: Auth | undefined, r: Refusals): Promise<Located | undefined> {
  const body = sentJson(ex.request) as ChatBody | undefined;
  if (!body || typeof body !== 'object' || typeof body.model !== 'string' || !refusesContent(ex)) return undefined;
  const model = body.model;
  const optional = optionalIn(body);
  if (!optional.length) return undefined;
  const send = (fields: readonly string[]) => chat(ctx, without(body, fields), { label: `${ex.label}, asked again without ${fields.join(', ')}`, auth, again: true });
  let found: { left: string[]; answer: Exchange } | undefined;
  const known = optional.filter((f) => r.refused.get(model)?.has(f));
  if (known.length) {
    const again = await send(known);
    if (served(again)) found = { left: known, answer: again };
  }
  if (!found && (r.fruitless.get(model) ?? 0) >= FRUITLESS) return undefined;
  // One field at a time first, as most refusals are of one: the cap last, as a request without it
  // may cost what the kit never asks for.
  for (const f of found ? [] : [...optional].sort((a, b) => Number(isCap(a)) - Number(isCap(b)))) {
    if (known.length === 1 && known[0] === f) continue;
    const again = await send([f]);
    if (served(again)) {
      found = { left: [f], answer: again };
      break;
    }
  }
  if (!found && optional.length > 1) {
    const bare = await send(optional);
    if (served(bare)) {
      found = { left: optional, answer: bare };
      // Each field put back in turn: one that keeps the request served was not refused.
      for (const f of optional) {
        const fewer: string[] = found.left.filter((x) => x !== f);
        if (!fewer.length) break;
        const again = await send(fewer);
        if (served(again)) found = { left: fewer, answer: again };
      }
    }
  }
  if (!found) {
    r.fruitless.set(model, (r.fruitless.get(model) ?? 0) + 1);
    return undefined;
  }
  const { left, answer } = found;
  const declared = declaredParameters((await catalog(ctx)).entries.get(model));
  const seen = r.refused.get(model) ?? new Set<string>();
  r.refused.set(model, seen);
  for (const f of left) seen.add(f);
  const why = `${describe(ex)}${errorText(ex)}`;
  return {
    served: answer,
    fields: left.map((field) => {
      const rule = FIELDS[field];
      const value = body[field];
      return { field, value, owner: rule.owner(value), owed: owes(field, value, declared), why: `${shown(field, value)} was refused (${why}), and the same request without it was served` };
    }),
  };
}

/** Where a refusal of a request the kit sent lies, found once for the run; a request with nothing to
 * leave out, or answered otherwise than a refusal of what it holds (a key refused, a 5xx), none. */
export const locateRefusal = (ctx: CheckContext, ex: Exchange): Promise<Located | undefined> => (served(ex) ? Promise.resolve(undefined) : locate(ctx, ex, undefined));

/** Whether `check` may be judged on the request without the field: one sent for the kit's own ends,
 * which neither its owner nor a check about it (CheckDef.about) is, nor a value the request tries. */
const leaveOut = (field: string, value: unknown, check: string | undefined, tries: readonly string[] = []) =>
  !!FIELDS[field]?.convenience && FIELDS[field].owner(value) !== check && !tries.includes(field) && !(check && ABOUT.get(check)?.includes(field));

export interface AskOptions {
  auth?: Auth;
  /** Fields whose values this request tries (a declared parameter at an end of its range): never
   * left out to judge it, and a refusal of one is the asking check's own, whoever owns the field. */
  tries?: readonly string[];
}

/** A chat request on a path (streamed with its usage asked for, fitted to the catalog) that the kit
 * expects served. Refused for a field the asking check may do without, the answer is the request's
 * served without it, and each such field's owner is charged where the model owes taking it; refused
 * otherwise, the refusal itself, its location known to the readers (refusedFor). */
export async function ask(ctx: CheckContext, path: ApiPath, body: ChatBody, label: string, opts: AskOptions = {}): Promise<Exchange> {
  return serve(ctx, await asked(ctx, path, body), path.stream ? `${label}, streamed` : label, opts);
}

/** The body as it is (a value tried at an end of its declared range, which fitting would move), asked
 * as `ask` asks. */
export async function serve(ctx: CheckContext, body: ChatBody, label: string, { auth, tries }: AskOptions = {}): Promise<Exchange> {
  const ex = await chat(ctx, body, { label, auth });
  if (served(ex)) return ex;
  const found = await locate(ctx, ex, auth);
  if (!found) return ex;
  if (!found.fields.every((f) => leaveOut(f.field, f.value, ctx.check, tries))) return ex;
  for (const f of found.fields) {
    const rule = FIELDS[f.field];
    if (f.owed) ctx.charge(f.owner, f.why, ex, { ...(typeof body.model === 'string' ? { model: body.model } : {}), ...rule.at?.(f.field) });
    ctx.note(
      `judged with less: ${f.why}${f.owed ? `; see ${f.owner}` : ', and the catalog does not declare it for the model (4.1 leaves unsupported parameters open)'}; the rule was judged on the answer without it`,
    );
  }
  return found.served;
}

/** A body the kit expects refused, as its control was served: without the fields the run found the
 * model refusing that the asking check may do without, so that the refusal is of what the body
 * breaks, not of a field its control was served without. */
export async function withoutRefused(ctx: CheckContext, body: ChatBody, tries?: readonly string[]): Promise<{ body: ChatBody; left: string[] }> {
  const known = typeof body.model === 'string' ? (await refusals(ctx)).refused.get(body.model) : undefined;
  const left = known ? optionalIn(body).filter((f) => known.has(f) && leaveOut(f, body[f], ctx.check, tries)) : [];
  return { body: left.length ? without(body, left) : body, left };
}

/** The fields the run has found `model` refusing so far. */
export const refusedFields = async (ctx: CheckContext, model: string): Promise<ReadonlySet<string>> => (await refusals(ctx)).refused.get(model) ?? new Set();

/** A request on a path the kit expects refused, after the request it is the broken copy of: as ask
 * sends it (streamed, fitted), but without what its control was served without (withoutRefused). */
export async function askToRefuse(ctx: CheckContext, path: ApiPath, body: ChatBody, label: string): Promise<Exchange> {
  const { body: sent, left } = await withoutRefused(ctx, await asked(ctx, path, body));
  return chat(ctx, sent, { label: `${path.stream ? `${label}, streamed` : label}${left.length ? `, without ${left.join(', ')}` : ''}`, refused: true });
}

/** The fields of a refused exchange that its location found, which `check` could not leave out: its
 * own (the fields it owns, and those whose values its request `tries`), and other checks'. */
export function refusedFor(ex: Exchange, check: string | undefined, tries: readonly string[] = []): { own: RefusedField[]; others: RefusedField[] } | undefined {
  const found = LOCATED.get(ex);
  if (!found) return undefined;
  const kept = found.fields.filter((f) => !leaveOut(f.field, f.value, check, tries));
  const own = (f: RefusedField) => f.owner === check || tries.includes(f.field);
  return { own: kept.filter(own), others: kept.filter((f) => !own(f)) };
}

/** The check a refused request's located refusal is charged to, where the model owes taking the
 * field: what a reader shown the refusal itself (not the answer without the field) is blocked by. */
export const refusalOwner = (ex: Exchange): string | undefined => LOCATED.get(ex)?.fields.find((f) => f.owed)?.owner;
