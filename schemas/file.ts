// A JSON or YAML file held to one of the schemas: a mistake names the file, the line, the place in
// the document and what was expected. YAML is a superset of JSON, so one parser serves both, with
// line numbers for either.
import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { validatorErrors, type SchemaName } from './index.js';

export class FileError extends Error {}

/** A rule a schema cannot state, broken at `path`. */
export interface Problem {
  path: (string | number)[];
  message: string;
}

/** The file's text, or a FileError that says which file and why not. */
export function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new FileError(`${file}: cannot read the ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The document in `text`, valid against `schema`, then against `more` (rules between its parts). */
export function parseAs<T>(text: string, file: string, schema: SchemaName, more: (value: T) => Problem[] = () => [], ErrorType: new (m: string) => Error = FileError): T {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const at = lines.linePos(e.pos[0]);
    throw new ErrorType(`${file}:${at.line}:${at.col}: not valid YAML or JSON: ${e.message.split('\n')[0]}`);
  }
  const value = doc.toJS() as unknown;
  const problems = validatorErrors(schema, value).map((p) => `${where(file, doc, lines, p.path)}: ${p.message}`);
  if (problems.length) throw new ErrorType(problems.join('\n'));
  const further = more(value as T).map((p) => `${where(file, doc, lines, p.path)}: ${p.message}`);
  if (further.length) throw new ErrorType(further.join('\n'));
  return value as T;
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
