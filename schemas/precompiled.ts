// The document's validators as the build made them (scripts/precompile-schemas.ts writes
// dist/schemas/validators.cjs), so that a command does not compile them as it starts: ajv's
// compiling was 1.3 s of the CPU of each process that ran a whole run, more than the run's
// requests. The file is used only when it was made from these very schemas and options (its
// digest); else, as from the sources, each validator is compiled when first asked for.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';

/** Where the build writes them, beside the built loader. */
export const PRECOMPILED_FILE = fileURLToPath(new URL('./validators.cjs', import.meta.url));

interface PrecompiledModule {
  digest: string;
  names: Record<string, string>;
  full: Record<string, ValidateFunction>;
  first: Record<string, ValidateFunction>;
}

let file: { digest: string; validators: Map<string, ValidateFunction> } | null | undefined;

/** The precompiled validators by key (`ref`, or `first:ref`), if the file holds those of `digest`. */
export function precompiled(digest: string): Map<string, ValidateFunction> | undefined {
  if (file === undefined) {
    file = null;
    if (existsSync(PRECOMPILED_FILE)) {
      const m = createRequire(import.meta.url)(PRECOMPILED_FILE) as PrecompiledModule;
      file = { digest: m.digest, validators: new Map(Object.entries(m.names).map(([key, name]) => [key, (key.startsWith('first:') ? m.first : m.full)[name]])) };
    }
  }
  return file?.digest === digest ? file.validators : undefined;
}
