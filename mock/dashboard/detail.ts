// One request as its detail shows it: the journal entry with its body, the answer (the body, or the
// stream's pieces with their times), why it was refused, and a curl that replays it with the key as
// $MOCK_API_KEY. Everything here is data: the page renders it as text.
import { curlOf } from '../../engine/curl.js';
import { shellVariable, type ShellSecret } from '../../engine/redact.js';
import type { RequestSpec } from '../../engine/http.js';
import type { KeyDef } from '../config/types.js';
import type { Journal, JournalEntry } from '../core/journal.js';
import type { Followed } from './live.js';
import { bearerToken } from '../core/bearer.js';

export const KEY_VARIABLE = 'MOCK_API_KEY';

export interface Detail {
  entry: JournalEntry;
  /** Null when no page listened as it was served: answers are kept only then. */
  answer: null | {
    status: number;
    content_type: string | null;
    /** The body as text (a JSON body as sent: the page pretty-prints it). */
    body?: string;
    /** A stream's pieces: milliseconds from the request's arrival, and the text written. */
    chunks?: { at_ms: number; text: string; reset?: true }[];
    ttfb_ms: number | null;
    total_ms: number | null;
  };
  refusal: Refusal | null;
  curl: string;
}

export interface Refusal {
  message: string;
  /** The request field it names, if any. */
  field: string | null;
  /** The document's section the rule stands in, if known. */
  section: string | null;
  code: string | null;
}

/** Where the document says what a refusal without a section of its own enforces. */
const SECTION_OF_CODE: Record<string, string> = {
  missing_api_key: '5',
  invalid_api_key: '5',
  model_not_found: '4.2',
  unsupported_value: '8',
  invalid_json: '4.1',
  not_found: '4',
  method_not_allowed: '4',
};

export function detailOf(journal: Journal, followed: Followed | undefined, seq: number, base: string, keys: readonly KeyDef[]): Detail | undefined {
  const entry = journal.get(seq);
  if (!entry) return undefined;
  const row = followed?.row;
  return {
    entry,
    answer: followed?.answer ? answerOf(followed.answer, row?.ttfb_ms ?? null, row?.total_ms ?? null) : null,
    refusal: row?.error && row.status >= 400 && !entry.faults.length ? refusalOf(row.error) : null,
    curl: curlFor(entry, followed, base, keys),
  };
}

function refusalOf(e: { message: string; param: string | null; code: string | null }): Refusal {
  const section = /\[(\d+(?:\.\d+)*)\]/.exec(e.message)?.[1] ?? (e.code ? SECTION_OF_CODE[e.code] : undefined) ?? null;
  // A schema's refusal names its place as a path (/messages/0/role); the error's param, only the top.
  const field = /(?:^|: )(\/[^\s:]+):/.exec(e.message)?.[1]?.slice(1).replace(/\//g, '.') ?? e.param;
  return { message: e.message, field, section, code: e.code };
}

function answerOf(a: NonNullable<Followed['answer']>, ttfb: number | null, total: number | null): Detail['answer'] {
  const type = a.headers['content-type'] ?? null;
  if (a.raw) return { status: 0, content_type: null, body: new TextDecoder().decode(a.raw.slice(0, 16 * 1024)), ttfb_ms: ttfb, total_ms: total };
  if (!a.stream) return { status: a.status, content_type: type, body: typeof a.body === 'string' ? a.body : new TextDecoder().decode(a.body), ttfb_ms: ttfb, total_ms: total };
  // Pieces may end inside a character (split=bytes): decoded as a client reads them, in order.
  const decoder = new TextDecoder();
  const { frames, times } = a.stream;
  const chunks = frames.map((f, i) => {
    const at_ms = Math.round(times[i] * 10) / 10;
    return 'reset' in f ? { at_ms, text: '', reset: true as const } : { at_ms, text: typeof f.bytes === 'string' ? f.bytes : decoder.decode(f.bytes, { stream: true }) };
  });
  return { status: a.status, content_type: type, chunks, ttfb_ms: ttfb, total_ms: total };
}

/** The request as sent, to the server the page reached; its key, whichever it was, as $MOCK_API_KEY. */
function curlFor(entry: JournalEntry, followed: Followed | undefined, base: string, keys: readonly KeyDef[]): string {
  const headers: Record<string, string> = { ...followed?.headers };
  // The key sent, or (no page listened, so it was not kept) the configured key of its id.
  const token = bearerToken(followed?.authorization) ?? keys.find((k) => k.id === entry.key_id)?.key;
  if (token) headers.authorization = `Bearer ${token}`;
  const secrets: ShellSecret[] = [...(token ? [{ value: token, shell: shellVariable(KEY_VARIABLE) }] : []), ...keys.filter((k) => k.key !== token).map((k) => ({ value: k.key }))];
  const body =
    followed?.raw !== undefined
      ? typeof followed.raw === 'string'
        ? followed.raw
        : new TextDecoder().decode(followed.raw)
      : entry.body === null
        ? undefined
        : typeof entry.body === 'string'
          ? entry.body
          : JSON.stringify(entry.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const spec = { method: entry.method, url: `${base}${entry.path}`, headers, body } as RequestSpec;
  return curlOf(spec, secrets);
}
