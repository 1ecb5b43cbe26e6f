// The first violations of a document, found in time that grows with the document, not with the
// square of its mistakes. A validator that reports every violation (ajv's allErrors) joins the errors
// of each item checked through a $ref to all those found before it: 10,000 models each with an
// unknown field took seconds, 100,000 minutes. One that stops at the first violation is linear, and
// says one thing. So: the validator that stops finds the first violation, the item of an array that
// holds it is left out, and again, up to `max` items; then the validator that says everything checks a
// copy of the document that holds only those items of their arrays and at most `max` items of any
// other, each member of it whole: what is wrong with each item found is said in full (a misspelt
// field and the field it leaves missing, together), and no array is long enough to make the joining
// cost. What the copy lacks is not said as a violation (a field, an item it left out).
import type { ErrorObject } from 'ajv';

/** A validator: the errors of `data`, or null when it is valid. Its errors are read at once: ajv
 * reuses their array on its next call. */
export type Validate = (data: unknown) => readonly ErrorObject[] | null;

type Segment = string | number;
type Path = readonly Segment[];

/** Members kept of an object of the copy: a field that is a map of a hundred thousand members, each
 * through a $ref, costs the joining too; no object of the kit's files has this many fields. */
const MEMBERS_KEPT = 1_000;

/** The violations of `data`, every one within the first `max` items found failing, at their places
 * in `data`; none when it is valid. */
export function firstViolations(first: Validate, all: Validate, data: unknown, max: number): ErrorObject[] {
  if (!first(data)) return [];
  const removed = new Map<string, number[]>();
  const found: Path[] = [];
  let doc = data;
  for (let round = 0; round < max; round++) {
    const errors = first(doc);
    if (!errors) break;
    const error = errors[0];
    const at = inOriginal(segments(error.instancePath), data, removed);
    // A violation the leaving out made (an array now shorter than its minimum) ends the search.
    if (!at || madeByCopy(error, at.path, data)) break;
    const item = deepestItem(at.path, data);
    // A violation outside every array item (a field of the top level): the copy says it.
    if (!item) break;
    found.push(at.path.slice(0, item.length));
    doc = without(doc, at.docPath.slice(0, item.length));
    const list = removed.get(key(item.slice(0, -1))) ?? [];
    list.push(item.at(-1) as number);
    removed.set(
      key(item.slice(0, -1)),
      list.sort((a, b) => a - b),
    );
  }
  const kept = new Map<string, number[]>();
  const copy = copyOf(data, [], found, max, kept);
  const errors = all(copy) ?? [];
  const out: ErrorObject[] = [];
  for (const e of errors) {
    const path = backTo(segments(e.instancePath), kept);
    if (!madeByCopy(e, path, data)) out.push({ ...e, instancePath: pointer(path) });
  }
  // The copy said nothing of its own that the document has: the first violation, as found, stands.
  return out.length ? out : [...(first(data) ?? [])];
}

const key = (path: Path) => JSON.stringify(path);

function segments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const pointer = (path: Path) => path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

const at = (root: unknown, path: Path): unknown => path.reduce<unknown>((node, p) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[p] : undefined), root);

/** A place in the document as searched (items left out) as a place in `data`, with the indices of
 * each in numbers. */
function inOriginal(docPath: readonly string[], data: unknown, removed: ReadonlyMap<string, number[]>): { path: Segment[]; docPath: Segment[] } | undefined {
  const path: Segment[] = [];
  const doc: Segment[] = [];
  let node = data;
  for (const s of docPath) {
    if (Array.isArray(node)) {
      let i = Number(s);
      if (!Number.isInteger(i)) return undefined;
      doc.push(i);
      for (const r of removed.get(key(path)) ?? []) if (r <= i) i++;
      path.push(i);
      node = node[i];
    } else {
      doc.push(s);
      path.push(s);
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[s] : undefined;
    }
  }
  return { path, docPath: doc };
}

/** The path of the deepest array item on `path`, if any. */
function deepestItem(path: Path, data: unknown): Path | undefined {
  let node = data;
  let deepest: Path | undefined;
  path.forEach((p, i) => {
    if (Array.isArray(node)) deepest = path.slice(0, i + 1);
    node = at(node, [p]);
  });
  return deepest;
}

/** `root` without the array item at `path`, copying only the containers on the way to it. */
function without(root: unknown, path: Path): unknown {
  const [head, ...rest] = path;
  if (Array.isArray(root)) return rest.length ? root.map((v, i) => (i === head ? without(v, rest) : v)) : root.filter((_, i) => i !== head);
  const copy = { ...(root as Record<string, unknown>) };
  copy[head] = without(copy[head], rest);
  return copy;
}

/** The copy the whole validator checks: on the way to each item found, only the items found; any
 * other array, its first `max` items; any object, its first MEMBERS_KEPT members. `kept` records
 * which items of `data` each shortened array holds, by the array's path in `data`. */
function copyOf(node: unknown, path: Segment[], found: readonly Path[], max: number, kept: Map<string, number[]>): unknown {
  if (Array.isArray(node)) {
    const through = found.filter((f) => f.length > path.length);
    if (!through.length) return node.slice(0, max).map((v, i) => copyOf(v, [...path, i], [], max, kept));
    const items = [...new Set(through.map((f) => f[path.length] as number))].sort((a, b) => a - b);
    kept.set(key(path), items);
    return items.map((i) =>
      copyOf(
        node[i],
        [...path, i],
        through.filter((f) => f[path.length] === i),
        max,
        kept,
      ),
    );
  }
  if (!node || typeof node !== 'object') return node;
  // A key of the file (`__proto__`) stays a key of the copy.
  const out: Record<string, unknown> = Object.create(null);
  const members = Object.entries(node).filter(([k], i) => i < MEMBERS_KEPT || found.some((f) => f[path.length] === k));
  for (const [k, v] of members)
    out[k] = copyOf(
      v,
      [...path, k],
      found.filter((f) => f[path.length] === k),
      max,
      kept,
    );
  return out;
}

/** A place in the copy as a place in `data`. */
function backTo(copyPath: readonly string[], kept: ReadonlyMap<string, number[]>): Segment[] {
  const path: Segment[] = [];
  for (const s of copyPath) {
    const items = kept.get(key(path));
    path.push(items ? items[Number(s)] : /^\d+$/.test(s) ? Number(s) : s);
  }
  return path;
}

/** Whether `data` itself does not have this violation, which a copy's leaving out made: a field it
 * has said missing, an array or object said shorter than it is. */
function madeByCopy(e: ErrorObject, path: Path, data: unknown): boolean {
  const node = at(data, path);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
    case 'dependentRequired':
      return !!node && typeof node === 'object' && Object.hasOwn(node, String(params.missingProperty));
    case 'minItems':
      return Array.isArray(node) && node.length >= Number(params.limit);
    case 'minProperties':
      return !!node && typeof node === 'object' && Object.keys(node).length >= Number(params.limit);
    case 'contains':
      return Array.isArray(node);
    default:
      return false;
  }
}
