// The one boundary between what a command found and what any reporter shows. Every text of a report
// (messages, notes, labels, headings, model ids, evidence, the commands that replay a request, the
// load's steps), whichever command made it (run, fuzz, load, a merge of loads, the reports diff
// reads), is redacted of the run's keys and then cut to the bound of its kind, here; the lists of
// texts are cut to a count. A RunReport is made only by `seal`: a reporter cannot be handed one
// whose texts did not pass it, and a new field is bounded the day it is added, by its name or by
// the default bound.
import { BOUNDS, bounded } from '../engine/bounded.js';
import { MIN_FREE_TEXT_KEY, type Redactor } from '../engine/redact.js';
import type { Bounded, RawReport, RunReport } from './report.js';

/** The bound of a text by the name of the field that holds it. A path's message is bounded as one
 * message, a check's (its paths' joined) as checkMessage. */
const BOUND_OF: ReadonlyMap<string, number> = new Map(
  Object.entries({
    message: BOUNDS.checkMessage,
    notes: BOUNDS.note,
    reason: BOUNDS.note,
    label: BOUNDS.label,
    path: BOUNDS.label,
    model: BOUNDS.label,
    kind: BOUNDS.label,
    slo: BOUNDS.label,
    url: BOUNDS.url,
    baseUrl: BOUNDS.url,
    siteUrl: BOUNDS.url,
    file: BOUNDS.url,
    body: BOUNDS.excerpt,
    excerpt: BOUNDS.excerpt,
    headers: BOUNDS.header,
    error: BOUNDS.error,
    reproduce: BOUNDS.curl,
  }),
);
/** Any other text: a title, a warning, an id, a section. */
const DEFAULT_BOUND = BOUNDS.message;
/** Fields whose members are named by the server or by a run (a header, an axis of a path): each
 * member is bounded as the field is. */
const MAPS = new Set(['headers', 'path']);

/** The most texts kept of a list of texts (notes, warnings): a server cannot make a report long by
 * making the kit say many things. */
export const MAX_TEXTS = 50;

/** The characters a report's replaying commands hold in all before each is cut to
 * BOUNDS.curlPastBudget: a server that makes every request long (a model id of a megabyte) makes
 * every command of its report long, and a hundred of them at BOUNDS.curl is megabytes of shell. */
export const REPORT_CURLS = 2_000_000;

/** Said once in every report whose keys are too short to be redacted. */
export const SHORT_KEY_WARNING = `an API key of this run is shorter than ${MIN_FREE_TEXT_KEY} characters: the reports do not redact it (a text that short turns up by chance), but where it stands in a credential header`;

/** `raw` with every text redacted with `redactor`, then cut to its bound. Sealing a sealed report
 * again changes nothing. */
export function seal(raw: RawReport, redactor: Redactor): RunReport {
  const sealed = walk(raw, DEFAULT_BOUND, '', false, { redactor, curls: REPORT_CURLS }) as RunReport;
  if (redactor.unredacted() && !sealed.warnings.includes(SHORT_KEY_WARNING as Bounded)) sealed.warnings.push(SHORT_KEY_WARNING as Bounded);
  return sealed;
}

/** One text shown beside a report (a usage error that quotes what the server sent), as seal bounds a message. */
export function sealText(text: string, redactor: Redactor): Bounded {
  return bounded(text, BOUNDS.message, redactor) as Bounded;
}

/** What a walk carries: the redactor, and what is left of the report's budget of commands. Each
 * command is charged what it keeps, so sealing a sealed report spends it the same way. */
interface Walk {
  redactor: Redactor;
  curls: number;
}

function walk(value: unknown, max: number, field: string, inPath: boolean, w: Walk): unknown {
  const { redactor } = w;
  if (typeof value === 'string') {
    if (field !== 'reproduce') return bounded(value, max, redactor);
    const kept = bounded(value, Math.min(max, Math.max(BOUNDS.curlPastBudget, w.curls)), redactor);
    w.curls -= kept.length;
    return kept;
  }
  if (Array.isArray(value)) {
    // The mark of what was left out is one of the MAX_TEXTS: a sealed list is sealed again as it is.
    const texts = value.length > MAX_TEXTS && value.every((v) => typeof v === 'string');
    const kept = texts ? value.slice(0, MAX_TEXTS - 1) : value;
    const out = kept.map((v) => walk(v, max, field, inPath, w));
    if (texts) out.push(`… and ${value.length - kept.length} more`);
    return out;
  }
  if (!value || typeof value !== 'object') return value;
  // A report read from a file names its own keys (a rule `__proto__` of a load step): they stay keys,
  // never an object's prototype, and a key the report lacks is never found on one.
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(value)) {
    // A path's message is one of the messages its check joins.
    const bound = k === 'message' && inPath ? BOUNDS.message : (BOUND_OF.get(k) ?? (MAPS.has(field) ? max : DEFAULT_BOUND));
    // Names of fields are texts too (a header's name, an axis): as long as a label.
    out[bounded(k, BOUNDS.label, redactor)] = walk(v, bound, k, inPath || k === 'paths', w);
  }
  return out;
}
