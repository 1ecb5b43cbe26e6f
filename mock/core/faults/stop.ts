// Faults proving the checks of the stop suite.
import type { Fault } from './fault.js';

export const STOP_FAULTS: Fault[] = [];
