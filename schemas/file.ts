// A JSON or YAML file held to one of the schemas: a mistake names the file, the line, the place in
// the document and what was expected. YAML is a superset of JSON, so one parser serves both, with
// line numbers for either. A file is anyone's (a baseline from a pull request, a report from another
// machine): it is read within a size, and its shape is bounded before a value is made of it.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { Composer, CST, isMap, isScalar, isSeq, Lexer, LineCounter, Parser, YAMLParseError, type Document } from 'yaml';
import { validatorErrors, type SchemaName } from './index.js';

export class FileError extends Error {}

/** A rule a schema cannot state, broken at `path`. */
export interface Problem {
  path: (string | number)[];
  message: string;
}

const MiB = 1024 * 1024;

/** What the kit reads of a file, whatever the file holds. Far above any file the kit writes or a
 * person keeps (a report nests 7 levels, a configuration 8; a baseline of every check is some
 * kilobytes, a run's report a few megabytes), and below what reading costs: the YAML parser takes
 * 130 to 170 times a file's size at its peak (a baseline of 1.7 MB, 225 MB; a configuration of
 * 100,000 models in 2.6 MB of JSON, 430 MB), JSON.parse some 3 to 30 (docs/bounded-input.md). */
export const FILE_LIMITS = {
  /** A configuration, a recording, a baseline: read as YAML. A baseline of 30,000 entries is 1.7 MB. */
  yamlBytes: 2 * MiB,
  /** A JSON report read back (`diff`, `load --merge`, `badge`). */
  reportBytes: 64 * MiB,
  /** Collections open at once: the parsers and the walkers (a schema's validator, the report's
   * boundary) recurse once per level, and the YAML parser runs out of stack past some 800. */
  depth: 64,
  /** Of a report: objects and arrays, and their members, in the whole document (as engine/json.ts
   * counts them): what parsing allocates most of. A report of a thousand models' paths holds some
   * hundreds of thousands. */
  reportContainers: 2_000_000,
  reportKeys: 4_000_000,
  /** Problems said of one file: the first of them say what to fix, and finding the rest of a file
   * of a hundred thousand mistakes is work for nothing. */
  problems: 10,
} as const;

const size = (bytes: number) => (bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes} bytes`);

/** The file's text, or a FileError that says which file and why not: it cannot be read, or it is
 * larger than `maxBytes`, which no more than `maxBytes` are read to find (a pipe or a device says no
 * size, and may never end). */
export function readText(file: string, what: string, maxBytes: number = FILE_LIMITS.yamlBytes): string {
  const past = () => new FileError(`${file}: cannot read the ${what}: larger than ${size(maxBytes)}, the most conformance reads of one`);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    if (fstatSync(fd).size > maxBytes) throw past();
    const chunks: Buffer[] = [];
    let read = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(MiB, maxBytes + 1 - read));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (!n) break;
      chunks.push(chunk.subarray(0, n));
      if ((read += n) > maxBytes) throw past();
    }
    return Buffer.concat(chunks, read).toString('utf8');
  } catch (e) {
    if (e instanceof FileError) throw e;
    throw new FileError(`${file}: cannot read the ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The document in `text`, valid against `schema`, then against `more` (rules between its parts).
 * Each says at most FILE_LIMITS.problems of them. */
export function parseAs<T>(text: string, file: string, schema: SchemaName, more: (value: T) => Problem[] = () => [], ErrorType: new (m: string) => Error = FileError): T {
  if (text.length > FILE_LIMITS.yamlBytes) throw new ErrorType(`${file}: larger than ${size(FILE_LIMITS.yamlBytes)}, the most conformance reads of a YAML or JSON file`);
  const lines = new LineCounter();
  const at = (offset: number) => {
    const pos = lines.linePos(offset);
    return `${file}:${pos.line}:${pos.col}`;
  };
  // The syntax tree first, which the parser builds without recursing, from tokens bounded as they
  // come: a document nested past the limit is said there, before the composer (which recurses) or
  // toJS sees it.
  const tokens = syntaxTree(text, lines, (offset, message) => new ErrorType(`${at(offset)}: ${message}`));
  const shape = shapeProblem(tokens);
  if (shape) throw new ErrorType(`${at(shape.offset)}: ${shape.message}`);
  const doc = onlyDocument(tokens, text.length);
  if (doc.errors.length) {
    const e = doc.errors[0];
    throw new ErrorType(`${at(e.pos[0])}: not valid YAML or JSON: ${e.message.split('\n')[0]}`);
  }
  const duplicate = duplicateKey(doc);
  if (duplicate) throw new ErrorType(`${at(duplicate.offset)}: not valid YAML or JSON: map keys must be unique; "${duplicate.key}" is given twice`);
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (e) {
    // An alias used past yaml's count (a document that grows as each alias copies the one before).
    throw new ErrorType(`${file}: not valid YAML or JSON: ${(e as Error).message}`);
  }
  const problems = validatorErrors(schema, value, FILE_LIMITS.problems).map((p) => `${where(file, doc, lines, p.path)}: ${p.message}`);
  if (problems.length) throw new ErrorType(problems.join('\n'));
  const further = more(value as T)
    .slice(0, FILE_LIMITS.problems)
    .map((p) => `${where(file, doc, lines, p.path)}: ${p.message}`);
  if (further.length) throw new ErrorType(further.join('\n'));
  return value as T;
}

/** Columns a block collection may start at: a block nests only a column or more to the right of
 * its parent, so this bounds its nesting as the tokens come, before the tree holds them. Eight
 * columns a level, FILE_LIMITS.depth levels: no file indents more. */
const INDENT_MAX = 8 * FILE_LIMITS.depth;

/** The parser's syntax tree of `text`. The tree of a document nested a million levels (2 MB of `[`
 * or of `- `) takes gigabytes, so each token is looked at before the parser takes it: flow
 * collections open past FILE_LIMITS.depth, or a block collection past INDENT_MAX columns, end the
 * reading with `past`'s error. */
function syntaxTree(text: string, lines: LineCounter, past: (offset: number, message: string) => Error): CST.Token[] {
  const parser = new Parser(lines.addNewLine);
  lines.addNewLine(0);
  const tokens: CST.Token[] = [];
  let offset = 0;
  let lineStart = 0;
  let atLineStart = true;
  let flow = 0;
  for (const lexeme of new Lexer().lex(text)) {
    const type = CST.tokenType(lexeme);
    if (type === 'flow-seq-start' || type === 'flow-map-start') {
      if (++flow > FILE_LIMITS.depth) throw past(offset, `nested deeper than ${FILE_LIMITS.depth} levels, the most conformance reads`);
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') flow = Math.max(0, flow - 1);
    // Where a block collection can start: the first token of a line, and an indicator of a compact one (`- - x`).
    const starts = atLineStart ? type !== 'space' && type !== 'newline' && type !== 'comment' : type === 'seq-item-ind' || type === 'explicit-key-ind';
    if (flow === 0 && starts && offset - lineStart > INDENT_MAX) throw past(offset, `indented past ${INDENT_MAX} columns, the most conformance reads`);
    // The markers the lexer adds (a scalar's, the document mode's) are no characters of the text. A
    // line ends in a newline, or within a token (a block scalar, a quoted text over lines).
    if (type !== 'scalar' && type !== 'doc-mode' && type !== 'flow-error-end') {
      const newline = lexeme.lastIndexOf('\n');
      if (newline >= 0) {
        lineStart = offset + newline + 1;
        atLineStart = /^[ \t]*$/.test(lexeme.slice(newline + 1));
      } else if (type !== 'space') atLineStart = false;
      offset += lexeme.length;
    }
    for (const token of parser.next(lexeme)) tokens.push(token);
  }
  for (const token of parser.end()) tokens.push(token);
  return tokens;
}

/** The one document of the stream (a second is an error of the first), as `parseDocument` makes it;
 * without its check of unique keys, which compares each key with every key before it in its map
 * (40,000 keys: a minute): `duplicateKey` does it with a set. */
function onlyDocument(tokens: readonly CST.Token[], length: number): Document.Parsed {
  let doc: Document.Parsed | undefined;
  for (const d of new Composer({ uniqueKeys: false }).compose(tokens, true, length)) {
    if (doc) {
      doc.errors.push(new YAMLParseError([d.range[0], d.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents; give one'));
      break;
    }
    doc = d;
  }
  // compose(…, true) ends with a document, an empty one for an empty text.
  return doc!;
}

/** A collection nested past FILE_LIMITS.depth, or a collection as a key (`? [a]: b`), which no file
 * of the kit has and which the parser turns into text in time that grows with a power of its depth
 * (256 levels: seconds; 512: half a minute), where in the tree. */
function shapeProblem(tokens: readonly CST.Token[]): { offset: number; message: string } | undefined {
  const open: [CST.Token, number][] = tokens.map((t) => [t, 0]);
  while (open.length) {
    const [t, depth] = open.pop()!;
    if (t.type === 'document' && t.value) open.push([t.value, depth]);
    if (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection') continue;
    if (depth >= FILE_LIMITS.depth) return { offset: t.offset, message: `nested deeper than ${FILE_LIMITS.depth} levels, the most conformance reads` };
    for (const item of t.items) {
      const key = 'key' in item ? item.key : undefined;
      if (key && (key.type === 'block-map' || key.type === 'block-seq' || key.type === 'flow-collection'))
        return { offset: key.offset, message: 'a key that is a list or a map, which no file of conformance has: give a key as text' };
      if (key) open.push([key, depth + 1]);
      if (item.value) open.push([item.value, depth + 1]);
    }
  }
  return undefined;
}

/** The first key given twice in one map, where it is: `1` and `"1"` alike, as they would be one
 * field of the value made. */
function duplicateKey(doc: Document.Parsed): { key: string; offset: number } | undefined {
  const nodes: unknown[] = [doc.contents];
  while (nodes.length) {
    const node = nodes.pop();
    if (isSeq(node)) for (const item of node.items) nodes.push(item);
    if (!isMap(node)) continue;
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
      if (seen.has(key)) return { key: key.slice(0, 200), offset: (pair.key as { range?: [number] } | null)?.range?.[0] ?? 0 };
      seen.add(key);
      nodes.push(pair.value);
    }
  }
  return undefined;
}

/** A place in a document as its reader writes it: `models[1].owned_by`. */
export const shownPath = (path: readonly (string | number)[]): string => path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '') || '(top level)';

function where(file: string, doc: Document, lines: LineCounter, path: (string | number)[]): string {
  const shown = shownPath(path);
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
