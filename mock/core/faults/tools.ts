// Faults proving the checks of the tools suite.
import type { Fault } from './fault.js';

export const TOOLS_FAULTS: Fault[] = [];
