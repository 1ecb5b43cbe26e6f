// Faults proving the checks of the catalog suite.
import type { Fault } from './fault.js';

export const CATALOG_FAULTS: Fault[] = [];
