// What a session generates for: the models under test, each with what its catalog entry declares.
import { catalog, declaredParameters, declaredRange, outputLength, type ParameterDescriptor } from '../api.js';
import type { CheckContext } from '../../engine/runner.js';
import { modelsUnderTest } from '../paths.js';

export interface ModelSpace {
  id: string;
  /** The supported_parameters of its catalog entry; undefined when the catalog does not describe it
   * (then every optional field may be refused: 4.1 leaves unsupported parameters open). */
  params?: Record<string, ParameterDescriptor>;
  /** The most output tokens the entry declares. */
  outputLength?: number;
}

export interface Space {
  models: ModelSpace[];
  /** No model is known (the model list cannot be read, and --model names none): every request goes
   * to a model id nobody lists, and so is owed a refusal; this says why. */
  noModel?: string;
  /** With noModel: the check whose rule kept every model unknown (models.list-shape, the list unread). */
  noModelBy?: string;
  /** The catalog could not be read, so it declares no field for any model: no request that carries
   * an optional field is owed an answer. Why, and the check whose rule that breaks (catalog.available). */
  noCatalog?: { problem: string; owner?: string };
}

/** The id requests carry when no model is known. */
export const NO_SUCH_MODEL = 'conformance-no-such-model';

export async function spaceOf(ctx: CheckContext): Promise<Space> {
  const [{ models, problem, owner }, cat] = await Promise.all([modelsUnderTest(ctx), catalog(ctx)]);
  if (!models.length) return { models: [{ id: NO_SUCH_MODEL }], noModel: problem ?? 'the key lists no model', ...(owner ? { noModelBy: owner } : {}) };
  return {
    models: models.map((m) => {
      const entry = cat.entries.get(m.id);
      return { id: m.id, params: declaredParameters(entry), outputLength: outputLength(entry) };
    }),
    ...(cat.problem ? { noCatalog: { problem: cat.problem, ...(cat.owner ? { owner: cat.owner } : {}) } } : {}),
  };
}

/** Fields a request carries that are about the conversation itself, not parameters a model declares. */
const NOT_PARAMETERS = new Set(['model', 'messages', 'stream', 'stream_options']);

/** The fields of a body the model's catalog entry does not declare (tools, when its conversation
 * holds tool calls): a 4xx for such a request is allowed. */
export function undeclaredIn(body: Record<string, unknown>, model: ModelSpace | undefined): string[] {
  const carried = Object.keys(body).filter((k) => !NOT_PARAMETERS.has(k) && body[k] !== null && body[k] !== undefined);
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  if (messages.some((m) => m && (m.role === 'tool' || m.tool_calls !== undefined)) && !carried.includes('tools')) carried.push('tools');
  if (!model?.params) return carried;
  return carried.filter((k) => !(k in model.params!));
}

/** The declared range of a numeric parameter, or the one given when it declares none. */
export function rangeOf(model: ModelSpace, name: string, fallback: { min: number; max: number }): { min: number; max: number } {
  const { min, max } = declaredRange(model.params?.[name]);
  return { min: min ?? fallback.min, max: max ?? fallback.max };
}

/** The catalog declares a range no value is in (its min above its max). */
export function emptyRange(model: ModelSpace, name: string): boolean {
  const { min, max } = declaredRange(model.params?.[name]);
  return min !== undefined && max !== undefined && min > max;
}
