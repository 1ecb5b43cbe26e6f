// Faults proving the checks of the stream suite.
import type { Fault } from './fault.js';

export const STREAM_FAULTS: Fault[] = [];
