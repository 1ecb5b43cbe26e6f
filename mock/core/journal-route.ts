// GET /__mock/requests (one read of the journal: the newest entries that fit, and where the rest
// are) and DELETE /__mock/requests (clears it). The query chooses the entries: before=SEQ,
// after=SEQ, limit=N.
import { echoed, errorReply } from './errors.js';
import { JOURNAL_PATH, type Journal, type JournalQuery } from './journal.js';
import type { MockReply } from './types.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
const PARAMETERS = ['before', 'after', 'limit'] as const;

export function journalRoute(journal: Journal, path: string, method: string): MockReply {
  if (method === 'GET') {
    const query = queryOf(path);
    if ('refused' in query) return query.refused;
    return { status: 200, headers: JSON_HEADERS, body: journal.pageText(query) };
  }
  if (method === 'DELETE') return { status: 200, headers: JSON_HEADERS, body: JSON.stringify({ cleared: journal.clear() }) };
  return { ...errorReply(405, `${JOURNAL_PATH} takes GET or DELETE.`, 'invalid_request_error', 'method_not_allowed'), headers: { ...JSON_HEADERS, allow: 'GET, DELETE' } };
}

/** The query of a read, or its refusal, naming the parameter. */
function queryOf(path: string): JournalQuery | { refused: MockReply } {
  const at = path.indexOf('?');
  const query: JournalQuery = {};
  if (at < 0) return query;
  for (const [name, value] of new URLSearchParams(path.slice(at + 1))) {
    if (!(PARAMETERS as readonly string[]).includes(name))
      return { refused: errorReply(400, `${JOURNAL_PATH} takes ${PARAMETERS.join(', ')}; not ${echoed(name)}.`, 'invalid_request_error', 'unknown_parameter', echoed(name)) };
    const n = Number(value);
    const least = name === 'limit' ? 1 : 0;
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < least)
      return { refused: errorReply(400, `${name} must be a whole number${least ? ' from 1' : ''}; found ${echoed(value)}.`, 'invalid_request_error', 'invalid_value', name) };
    query[name as (typeof PARAMETERS)[number]] = n;
  }
  return query;
}
