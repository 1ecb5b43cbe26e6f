// Faults by reference: `name`, `name; key=value; key=value` (the x-mock-fault header and the CLI),
// or `{ name, params }` (a configuration file).
import type { FaultRef } from '../../config/types.js';
import type { Fault } from './fault.js';
import { faultNamed } from './index.js';
import { echoed } from '../errors.js';

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
  for (const p of pairs.filter(Boolean)) {
    const at = p.indexOf('=');
    if (at <= 0) throw new Error(`fault "${echoed(name)}": parameter "${echoed(p)}" has no value (write ${echoed(p)}=VALUE)`);
    params[p.slice(0, at).trim()] = p.slice(at + 1).trim();
  }
  return { name, params };
}

/** The parameters a fault does not take, or takes as a non-negative number and got otherwise. */
function checkParams(fault: Fault, params: Record<string, string>): void {
  const takes = { ...fault.params, times: { default: Infinity, describe: 'how many requests it applies to' } };
  for (const [k, v] of Object.entries(params)) {
    if (!(k in takes)) {
      const names = Object.keys(takes);
      throw new Error(`fault "${fault.name}" takes no parameter "${echoed(k)}" (it takes ${names.join(', ')})`);
    }
    const n = Number(v);
    if (v === '' || !Number.isFinite(n) || n < 0 || (k === 'times' && !Number.isInteger(n)))
      throw new Error(`fault "${fault.name}": parameter "${k}" must be a ${k === 'times' ? 'whole ' : ''}number of at least 0, not "${echoed(v)}"`);
  }
}

/** Throws, naming the fault, when a name is not in the catalogue. */
export function resolveFaults(refs: readonly (Fault | FaultRef)[]): SelectedFault[] {
  return refs
    .filter((r) => typeof r !== 'string' || r.trim())
    .map((r) => {
      if (typeof r === 'object' && 'fails' in r) return { fault: r, params: {}, ref: r.name };
      const { name, params } = parseFaultRef(r);
      const fault = faultNamed(name);
      checkParams(fault, params);
      return { fault, params, ref: typeof r === 'string' ? r.trim() : name };
    });
}
