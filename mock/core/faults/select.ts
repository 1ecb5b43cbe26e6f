// Faults by reference: `name`, `name; key=value; key=value` (the x-mock-fault header and the CLI),
// or `{ name, params }` (a configuration file).
import type { FaultRef } from '../../config/types.js';
import type { Fault } from './fault.js';
import { faultNamed } from './index.js';

export type { FaultRef };

export interface SelectedFault {
  fault: Fault;
  params: Record<string, string>;
  /** The reference as written, for the journal and for counting `times`. */
  ref: string;
}

export function parseFaultRef(ref: FaultRef): { name: string; params: Record<string, string> } {
  if (typeof ref !== 'string') return { name: ref.name, params: Object.fromEntries(Object.entries(ref.params ?? {}).map(([k, v]) => [k, String(v)])) };
  const [name, ...pairs] = ref.split(';').map((s) => s.trim());
  const params: Record<string, string> = {};
  for (const p of pairs) {
    const at = p.indexOf('=');
    if (at > 0) params[p.slice(0, at).trim()] = p.slice(at + 1).trim();
  }
  return { name, params };
}

/** Throws, naming the fault, when a name is not in the catalogue. */
export function resolveFaults(refs: readonly (Fault | FaultRef)[]): SelectedFault[] {
  return refs
    .filter((r) => typeof r !== 'string' || r.trim())
    .map((r) => {
      if (typeof r === 'object' && 'fails' in r) return { fault: r, params: {}, ref: r.name };
      const { name, params } = parseFaultRef(r);
      return { fault: faultNamed(name), params, ref: typeof r === 'string' ? r.trim() : name };
    });
}
