// Before any verdict: does the base URL answer as the API at all? A login page of a proxy, a web
// server on the wrong port, a base URL given with /v1 (the kit appends /v1/... itself) would each get
// a report failing every rule, auth holes among them, for a server that is not under test. The line
// is drawn from the document: 4.2 answers a JSON model list and 4.1 a JSON completion, so a target
// where neither route answers JSON, or both answer "no such route", is not the API; one route that
// does is the API, broken, and gets its verdicts.
import type { HttpClient, HttpResult } from '../engine/http.js';
import type { Target } from '../engine/target.js';

/** Whether an answer is one an API gives (whatever its rules think of it), false when it is what a
 * server gives that does not serve the route, undefined when it cannot tell (no answer, a 5xx that
 * is not a page). */
function apiLike(r: HttpResult, sentModel?: string): boolean | undefined {
  // An answer cut short (a timeout, the cap) is a broken server's, whatever it is: its verdicts say.
  if (r.status === undefined || r.error) return undefined;
  const type = r.headers['content-type'] ?? '';
  // Only an API of this kind answers with events.
  if (/event-stream/i.test(type)) return true;
  // A page is never the API's, whatever its status: a web server's 501 to a POST, a proxy's 502 or
  // 503 page. A 5xx the API could give (JSON, a plain "Loading model") is a server in trouble or
  // getting ready (suites/ready.ts), which its verdicts say.
  if (isPage(r)) return false;
  if (r.status >= 500) return undefined;
  const start = r.body.subarray(0, 256).toString('utf8').trimStart();
  const json = /json/i.test(type) || start.startsWith('{') || start.startsWith('[');
  // No such route, unless it is the model that was not found (OpenAI's model_not_found is a 404).
  if (r.status === 404 || r.status === 405) return sentModel !== undefined && json && r.body.includes(sentModel);
  // A 2xx of the API is JSON; a refusal of any kind is what an API gives a request it read.
  return r.status < 300 ? json : true;
}

/** Whether an answer is a page (HTML by its type or by its first character): what a web server or
 * a proxy shows a browser, never an answer of the API. */
export function isPage(r: HttpResult): boolean {
  return /html/i.test(r.headers['content-type'] ?? '') || r.body.subarray(0, 256).toString('utf8').trimStart().startsWith('<');
}

/** What an answer was, in a few words: `200 text/html ("Sign in")`. */
function seen(r: HttpResult): string {
  if (r.status === undefined) return `no answer (${r.error?.message ?? 'none'})`;
  const text = r.body.subarray(0, 2048).toString('utf8');
  const title = /<title[^>]*>([^<]{1,80})/i.exec(text)?.[1]?.trim();
  const type = (r.headers['content-type'] ?? 'no content-type').split(';')[0];
  return `${r.status} ${type}${title ? ` ("${title}")` : ''}`;
}

/** What an answer was, with what its body says when it is not a page: `503 application/json
 * ("Loading model")`, the error's message of a JSON body or the first line of a text, cut short and
 * with no control character (it is the server's text, printed on a terminal). */
export function answerWords(r: HttpResult): string {
  if (r.status === undefined || isPage(r)) return seen(r);
  const text = r.body.subarray(0, 2048).toString('utf8');
  let said: unknown = text.split('\n', 1)[0];
  try {
    const json = JSON.parse(text) as { error?: unknown; message?: unknown };
    const error = json?.error;
    said = typeof error === 'string' ? error : typeof error === 'object' && error ? (error as { message?: unknown }).message : json?.message;
  } catch {
    // not JSON: the first line of the text stands
  }
  const words = typeof said === 'string' ? said.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim() : '';
  return `${seen(r)}${words ? ` ("${words.length > 80 ? `${words.slice(0, 79)}…` : words}")` : ''}`;
}

const stripped = (base: string) => base.replace(/\/v1$/, '');

/** Why the target is not the API, in one line that says what to change; undefined when it is (or
 * when it cannot be told, which the verdicts then say). `models`: GET {base}/v1/models with the key. */
export async function notTheApi(target: Target, http: HttpClient, signal: AbortSignal, models: HttpResult): Promise<string | undefined> {
  if (apiLike(models) !== false) return undefined;
  const model = target.models[0] ?? 'any-model';
  const chat = await http.send(
    {
      method: 'POST',
      url: `${target.baseUrl}/v1/chat/completions`,
      headers: { ...target.headers, authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 16 }),
    },
    signal,
  );
  if (apiLike(chat, model) !== false) return undefined;
  const answered = `GET /v1/models answered ${seen(models)} and POST /v1/chat/completions ${seen(chat)}`;
  if (/\/v1$/.test(target.baseUrl)) {
    const list = await http.send({ method: 'GET', url: `${stripped(target.baseUrl)}/v1/models`, headers: { ...target.headers, authorization: `Bearer ${target.apiKey}` } }, signal);
    if (apiLike(list)) return `--base-url ends in /v1, and the kit appends /v1/... itself: under ${target.baseUrl}, ${answered}; use --base-url ${stripped(target.baseUrl)}`;
  }
  return `${target.baseUrl} does not answer as the API: ${answered}; is --base-url the API's address (not a proxy's page, another port or path)?`;
}
