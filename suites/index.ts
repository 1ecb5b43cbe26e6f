// The registry: every check of the kit, suite by suite, in document order.
import type { ApiCheck } from './api.js';
import { MODELS } from './models.js';

export const SUITES: Record<string, ApiCheck[]> = {
  models: MODELS,
};

export const CHECKS: ApiCheck[] = Object.values(SUITES).flat();

export type { ApiCheck } from './api.js';
export type { Check, CheckResult, Verdict, Level, Outcome, Evidence } from './harness/check.js';
export { runChecks, selectChecks, type CheckContext, type Filters } from './harness/runner.js';
