// A configuration is read over the built-in one: each top-level field it gives replaces that field
// whole, and a field it leaves out keeps the built-in value. Whole, not merged item by item: a file
// that gives `keys:` serves only its own keys, and a recorded or complete file (both give keys and
// models) serves exactly what it says, with nothing of the built-in one mixed in.
import type { Problem } from '../../schemas/file.js';
import { validatorErrors } from '../../schemas/index.js';
import { crossCheck } from './check.js';
import { DEFAULT_CONFIG } from './default.js';
import type { MockConfig } from './types.js';

/** The configuration `given` makes: its fields, and the built-in configuration's for the rest. */
export function overBuiltIn(given: Partial<MockConfig>): MockConfig {
  return { ...DEFAULT_CONFIG, ...given };
}

/** The rules between the parts of the configuration `given` makes. The built-in keys name the
 * built-in models: a file that replaces the models and keeps those keys is told so at its models,
 * not at keys it never wrote. */
export function extensionProblems(given: Partial<MockConfig>): Problem[] {
  const config = overBuiltIn(given);
  if (given.models && !given.keys) {
    const served = new Set(config.models.map((m) => m.id));
    const lost = [...new Set(DEFAULT_CONFIG.keys.flatMap((k) => k.models))].filter((id) => !served.has(id));
    if (lost.length) return [{ path: ['models'], message: `the built-in keys use ${lost.join(', ')}, which these models do not define: give keys: of your own, naming these models` }];
  }
  return crossCheck(config);
}

/** Every violation of a configuration given as an object (a page's mock), as `path: what was
 * expected`; none when it is valid. */
export function configProblems(given: unknown): string[] {
  const where = (path: (string | number)[]) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('') || '(top level)';
  const schema = validatorErrors('mock-config', given);
  if (schema.length) return schema.map((p) => `${where(p.path)}: ${p.message}`);
  return extensionProblems(given as Partial<MockConfig>).map((p) => `${where(p.path)}: ${p.message}`);
}
