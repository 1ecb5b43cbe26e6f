// Faults proving the checks of the structured suite.
import type { Fault } from './fault.js';

export const STRUCTURED_FAULTS: Fault[] = [];
