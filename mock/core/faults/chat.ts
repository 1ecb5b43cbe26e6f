// Faults proving the checks of the chat suite.
import type { Fault } from './fault.js';

export const CHAT_FAULTS: Fault[] = [];
