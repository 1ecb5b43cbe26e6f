// The fault catalogue: every named deviation the mock can serve, one file per suite it proves.
import type { Fault } from './fault.js';
import { HOSTILE } from './hostile.js';
import { LEGAL } from './legal.js';
import { MODEL_FAULTS } from './models.js';

export const FAULTS: readonly Fault[] = [...LEGAL, ...MODEL_FAULTS, ...HOSTILE];

const byName = new Map(FAULTS.map((f) => [f.name, f]));

export function faultNamed(name: string): Fault {
  const f = byName.get(name);
  if (!f) throw new Error(`no fault named "${name}"; see conformance mock --list-faults`);
  return f;
}

export type { Fault, FaultContext } from './fault.js';
