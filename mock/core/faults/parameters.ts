// Faults proving the checks of the parameters suite.
import type { Fault } from './fault.js';

export const PARAMETERS_FAULTS: Fault[] = [];
