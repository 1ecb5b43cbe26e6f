// Faults proving the checks of the auth suite.
import type { Fault } from './fault.js';

export const AUTH_FAULTS: Fault[] = [];
