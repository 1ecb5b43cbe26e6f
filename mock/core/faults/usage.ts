// Faults proving the checks of the usage suite.
import type { Fault } from './fault.js';

export const USAGE_FAULTS: Fault[] = [];
