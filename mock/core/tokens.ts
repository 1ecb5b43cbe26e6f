// The one tokenizer stand-in, used for every count the mock reports. A token is an optional run of
// leading white space followed by up to six letters or digits, or by one other character. It is
// cheap (one regular expression pass), deterministic, and splits generated words exactly as the
// generator emits them, so completion counts are exact by construction.
const TOKEN = /\s*(?:[\p{L}\p{N}]{1,6}|[^\s\p{L}\p{N}])|\s+$/gu;

export function countTokens(text: string): number {
  if (!text) return 0;
  let n = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.exec(text)) n++;
  return n;
}

export function splitTokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** Per-message overhead, as chat formats wrap each message in a few special tokens. */
const PER_MESSAGE = 4;
const PRIMING = 3;

export function promptTokens(messages: readonly unknown[], tools?: unknown): number {
  let n = PRIMING;
  for (const m of messages) {
    const msg = m as { content?: unknown; name?: unknown; tool_calls?: unknown };
    n += PER_MESSAGE + countTokens(contentText(msg.content));
    if (typeof msg.name === 'string') n += countTokens(msg.name);
    if (msg.tool_calls) n += countTokens(JSON.stringify(msg.tool_calls));
  }
  if (tools) n += countTokens(JSON.stringify(tools));
  return n;
}

/** Text of a message content: a string, or the text parts of an array. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n');
  return '';
}
