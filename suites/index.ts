// The registry: every check of the kit, suite by suite, in the order of the document.
import type { ApiCheck } from './api.js';
import { AUTH } from './auth.js';
import { CATALOG } from './catalog.js';
import { CHAT } from './chat.js';
import { ERRORS } from './errors.js';
import { FUZZ, fuzzChecks, type FuzzSettings } from './fuzz/index.js';
import { LOAD } from './load.js';
import { MODELS } from './models.js';
import { PARAMETERS } from './parameters.js';
import { STOP } from './stop.js';
import { STREAM } from './stream.js';
import { STRUCTURED } from './structured.js';
import { TOOLS } from './tools.js';
import { USAGE } from './usage.js';

export const SUITES: Record<string, ApiCheck[]> = {
  chat: CHAT,
  stop: STOP,
  tools: TOOLS,
  structured: STRUCTURED,
  parameters: PARAMETERS,
  models: MODELS,
  catalog: CATALOG,
  auth: AUTH,
  stream: STREAM,
  usage: USAGE,
  errors: ERRORS,
  fuzz: FUZZ,
  load: LOAD,
};

export const CHECKS: ApiCheck[] = Object.values(SUITES).flat();

/** The registry with the fuzz checks of other settings (`conformance fuzz`, --fuzz-runs). */
export const withFuzz = (settings: FuzzSettings, note?: string): ApiCheck[] => [...CHECKS.filter((c) => c.suite !== 'fuzz'), ...fuzzChecks(settings, note)];

export type { ApiCheck } from './api.js';
export type { Check, CheckResult, Verdict, Level, Outcome, Evidence } from '../engine/check.js';
export { runChecks, selectChecks, type CheckContext, type Filters } from '../engine/runner.js';
