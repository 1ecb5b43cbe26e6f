// A flow's id and level, from the registry of checks: a flow is a must where one of the checks it
// rests on is, as a user's code breaks where the document's rule does.
import type { Level } from '../engine/check.js';
import { CHECKS } from '../suites/index.js';

const LEVEL = new Map(CHECKS.map((c) => [c.id, c.level]));

/** `openai.stream`: stable, as a check id is. */
export const flowId = (client: string, flow: string) => `${client}.${flow}`;

/** The highest level among the checks a flow rests on. */
export function levelOf(rests: readonly string[]): Level {
  const levels = rests.map((id) => LEVEL.get(id));
  return levels.includes('must') ? 'must' : levels.includes('should') ? 'should' : 'info';
}

/** The rests that name no check of the registry (a test holds every flow to none). */
export const unknownRests = (rests: readonly string[]) => rests.filter((id) => !LEVEL.has(id));

/** A check's level, by its id. */
export const checkLevel = (id: string): Level | undefined => LEVEL.get(id);
