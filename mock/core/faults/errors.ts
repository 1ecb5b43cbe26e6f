// Faults proving the checks of the errors suite.
import type { Fault } from './fault.js';

export const ERRORS_FAULTS: Fault[] = [];
