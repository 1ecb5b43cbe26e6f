// The fault catalogue: every named deviation the mock can serve, one file per suite it proves,
// plus legal variations (which must fail nothing), hostile transports (which prove the runner) and
// load faults (which show only with requests in flight together: proven by a load sweep).
import { nearest } from '../../../schemas/nearest.js';
import { AUTH_FAULTS } from './auth.js';
import { CATALOG_FAULTS } from './catalog.js';
import { CAUSE_FAULTS } from './causes.js';
import { CHAT_FAULTS } from './chat.js';
import { COLLATERAL_FAULTS } from './collateral.js';
import { EDGE_FAULTS } from './edges.js';
import { ENGINE_FAULTS } from './engines.js';
import { ERRORS_FAULTS } from './errors.js';
import type { Fault } from './fault.js';
import { FRONTEND } from './frontend.js';
import { FUZZ_FAULTS } from './fuzz.js';
import { HOSTILE } from './hostile.js';
import { LEGAL } from './legal.js';
import { LOAD_FAULTS } from './load.js';
import { MODEL_FAULTS } from './models.js';
import { PARAMETERS_FAULTS } from './parameters.js';
import { REFUSAL_FAULTS } from './refusals.js';
import { STOP_FAULTS } from './stop.js';
import { EVERY_STREAM_FAULTS, STREAM_FAULTS } from './stream.js';
import { STRUCTURED_FAULTS } from './structured.js';
import { TOOLS_FAULTS } from './tools.js';
import { USAGE_FAULTS } from './usage.js';
import { VERDICT_FAULTS } from './verdicts.js';
import { echoed } from '../errors.js';

export const FAULTS: readonly Fault[] = [
  ...LEGAL,
  ...CHAT_FAULTS,
  ...STOP_FAULTS,
  ...TOOLS_FAULTS,
  ...STRUCTURED_FAULTS,
  ...PARAMETERS_FAULTS,
  ...MODEL_FAULTS,
  ...CATALOG_FAULTS,
  ...AUTH_FAULTS,
  ...STREAM_FAULTS,
  ...EVERY_STREAM_FAULTS,
  ...USAGE_FAULTS,
  ...ERRORS_FAULTS,
  ...ENGINE_FAULTS,
  ...FUZZ_FAULTS,
  ...VERDICT_FAULTS,
  ...EDGE_FAULTS,
  ...REFUSAL_FAULTS,
  ...COLLATERAL_FAULTS,
  ...CAUSE_FAULTS,
  ...HOSTILE,
  ...FRONTEND,
  ...LOAD_FAULTS,
];

const byName = new Map(FAULTS.map((f) => [f.name, f]));

export function faultNamed(name: string): Fault {
  const f = byName.get(name);
  if (!f) {
    const near = nearest(name, [...byName.keys()]);
    throw new Error(`no fault named "${echoed(name)}"${near ? `: did you mean ${near}?` : ''}; see conformance mock --list-faults`);
  }
  return f;
}

export type { Fault } from './fault.js';
