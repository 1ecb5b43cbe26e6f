// A configuration file (JSON or YAML) to a MockConfig. A mistake names the file, the place in
// the document (path and line) and what was expected, and no server starts.
import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { validatorErrors } from '../../schemas/index.js';
import { resolveFaults } from '../core/faults/select.js';
import { textMatcher } from '../core/scenarios.js';
import type { FaultRef, MockConfig } from './types.js';

export class ConfigError extends Error {}

export function loadConfigFile(file: string): MockConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`${file}: cannot read the configuration: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseConfig(text, file);
}

/** YAML is a superset of JSON, so one parser serves both, with line numbers for either. */
export function parseConfig(text: string, file: string): MockConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const at = lines.linePos(e.pos[0]);
    throw new ConfigError(`${file}:${at.line}:${at.col}: not valid YAML or JSON: ${e.message.split('\n')[0]}`);
  }
  const config = doc.toJS() as unknown;
  const problems = validatorErrors('mock-config', config).map((p) => `${where(file, doc, lines, p.path)}: ${p.message}`);
  if (problems.length) throw new ConfigError(problems.join('\n'));
  const c = config as MockConfig;
  const more = crossCheck(c).map((p) => `${where(file, doc, lines, p.path)}: ${p.message}`);
  if (more.length) throw new ConfigError(more.join('\n'));
  return c;
}

/** Rules a schema cannot state: references between parts of the file. */
function crossCheck(c: MockConfig): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const seen = new Set<string>();
  c.models.forEach((m, i) => {
    if (seen.has(m.id)) out.push({ path: ['models', i, 'id'], message: `expected each model id once; "${m.id}" is defined twice` });
    seen.add(m.id);
  });
  const keyIds = new Set<string>();
  const keyValues = new Set<string>();
  c.keys.forEach((k, i) => {
    if (keyIds.has(k.id)) out.push({ path: ['keys', i, 'id'], message: `expected each key id once; "${k.id}" is used twice` });
    if (keyValues.has(k.key)) out.push({ path: ['keys', i, 'key'], message: 'expected each key once; the same key is given twice' });
    keyIds.add(k.id);
    keyValues.add(k.key);
    k.models.forEach((id, j) => {
      if (!seen.has(id)) out.push({ path: ['keys', i, 'models', j], message: `expected the id of a model defined under models; "${id}" is not one` });
    });
  });
  const fault = (ref: FaultRef, path: (string | number)[]) => {
    try {
      resolveFaults([ref]);
    } catch (e) {
      out.push({ path, message: `expected a fault of the catalogue; ${(e as Error).message}` });
    }
  };
  c.faults?.always?.forEach((f, i) => fault(f, ['faults', 'always', i]));
  c.faults?.random?.pool.forEach((f, i) => fault(f, ['faults', 'random', 'pool', i]));
  c.scenarios?.forEach((s, i) => {
    if (s.match.model !== undefined && !seen.has(s.match.model)) out.push({ path: ['scenarios', i, 'match', 'model'], message: `expected a model defined under models; "${s.match.model}" is not one` });
    if (s.match.key !== undefined && !keyIds.has(s.match.key)) out.push({ path: ['scenarios', i, 'match', 'key'], message: `expected a key id defined under keys; "${s.match.key}" is not one` });
    for (const field of ['last_user', 'system'] as const) {
      const pattern = s.match[field];
      if (pattern === undefined) continue;
      try {
        textMatcher(pattern);
      } catch (e) {
        out.push({ path: ['scenarios', i, 'match', field], message: `expected a valid regular expression: ${(e as Error).message}` });
      }
    }
    if (s.reply.fault) fault(s.reply.fault, ['scenarios', i, 'reply', 'fault']);
  });
  return out;
}

function where(file: string, doc: Document, lines: LineCounter, path: (string | number)[]): string {
  const shown = path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '') || '(top level)';
  // The deepest node the path reaches gives the line.
  let node: unknown = doc.contents;
  for (const p of path) {
    const next = isMap(node) || isSeq(node) ? (node as { get(k: unknown, keep: true): unknown }).get(p, true) : undefined;
    if (!next) break;
    node = next;
  }
  const range = (node as { range?: [number, number, number] } | undefined)?.range;
  const at = range ? lines.linePos(range[0]) : undefined;
  return `${file}${at ? `:${at.line}` : ''}: ${shown}`;
}
