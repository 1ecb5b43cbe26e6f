// The document's validators compiled at build time (scripts/precompile-schemas.ts writes
// dist/schemas/validators.cjs), so that a command does not compile them as it starts: ajv's
// compiling was a second of the CPU of each process that ran a whole run. Node only (the loader of
// schemas/index.ts stays browser-safe): the command line installs them as it starts. The file is used
// only when it was made of these very schemas and options (its digest); else, as from the sources
// or in a browser, each validator is compiled when first asked for.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { compileAheadFrom, compileAheadInputs } from './index.js';

/** Where the build writes them, beside the built loader: named from dist/schemas/ so that the
 * command line's bundle (dist/bin/, scripts/bundle-bin.ts) finds the same file. */
export const PRECOMPILED_FILE = fileURLToPath(new URL('../schemas/validators.cjs', import.meta.url));

interface PrecompiledModule {
  digest: string;
  names: Record<string, string>;
  full: Record<string, ValidateFunction>;
  first: Record<string, ValidateFunction>;
}

let last: { madeOf: string; digest: string } | undefined;
const digestOf = (madeOf: string) => (last?.madeOf === madeOf ? last : (last = { madeOf, digest: createHash('sha256').update(madeOf).digest('hex') })).digest;

let file: { digest: string; validators: Map<string, ValidateFunction> } | null | undefined;

/** The precompiled validators by key (`ref`, or `first:ref`), if the file holds those made of `madeOf`. */
export function precompiled(madeOf: string): Map<string, ValidateFunction> | undefined {
  if (file === undefined) {
    file = null;
    if (existsSync(PRECOMPILED_FILE)) {
      const m = createRequire(import.meta.url)(PRECOMPILED_FILE) as PrecompiledModule;
      file = { digest: m.digest, validators: new Map(Object.entries(m.names).map(([key, name]) => [key, (key.startsWith('first:') ? m.first : m.full)[name]])) };
    }
  }
  return file?.digest === digestOf(madeOf) ? file.validators : undefined;
}

/** Validators are looked for in the file before they are compiled. */
export const usePrecompiled = () => compileAheadFrom(precompiled);

/** The validators asked for so far, as the source of one CommonJS module (ajv's standalone code of
 * each kind, in a scope of its own), made of the schemas and options `madeOf` names. */
export async function precompiledSource(madeOf: string): Promise<string> {
  const standalone = await import('ajv/dist/standalone/index.js');
  const standaloneCode = ((standalone as unknown as { default?: unknown }).default ?? standalone) as (ajv: Ajv2020, refs: Record<string, string>) => string;
  const { keys, instance, schemaId } = compileAheadInputs();
  const scope = (first: boolean) => {
    const refs = keys.filter((k) => k.startsWith('first:') === first).map((k) => k.replace(/^first:/, ''));
    const code = standaloneCode(instance(first), Object.fromEntries(refs.map((ref, i) => [`v${i}`, schemaId(ref)])));
    return {
      code: `(() => { const exports = {}; const module = { exports };\n${code}\nreturn module.exports; })()`,
      names: Object.fromEntries(refs.map((ref, i) => [first ? `first:${ref}` : ref, `v${i}`])),
    };
  };
  const full = scope(false);
  const first = scope(true);
  return [
    '// Made by scripts/precompile-schemas.ts from schemas/*.schema.json at build time: not to be edited.',
    `exports.digest = ${JSON.stringify(digestOf(madeOf))};`,
    `exports.names = ${JSON.stringify({ ...full.names, ...first.names })};`,
    `exports.full = ${full.code};`,
    `exports.first = ${first.code};`,
    '',
  ].join('\n');
}
