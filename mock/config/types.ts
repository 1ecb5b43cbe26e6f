// The mock's configuration: keys, and the models from which both the per-key model list (4.2)
// and the public catalog (4.3) are derived, so the two can never disagree.

export type ParameterDescriptor =
  | { type: 'range' | 'integer'; min?: number; max?: number; default?: number; unit?: string }
  | { type: 'boolean'; default?: boolean }
  | { type: 'enum'; values: (string | number | boolean)[]; default?: unknown }
  | { type: 'array'; max_items?: number; items?: unknown; default?: unknown }
  | { type: 'object'; properties: Record<string, unknown>; default?: unknown }
  | { type: 'unknown'; default?: unknown };

export interface ModelDef {
  id: string;
  /** Human name in the catalog. */
  name: string;
  owned_by: string;
  /** Unix seconds. */
  created: number;
  /** Spends reasoning tokens before the answer, counted in max_tokens and reasoning_tokens. */
  reasoning?: boolean;
  context_length: number;
  max_output_tokens: number;
  /** The catalog's precision; null when undeclared. */
  quantization: string | null;
  /** USD per token (prompt, completion...) and per request, as decimal strings. */
  pricing: { prompt: string; completion: string; cached_prompt?: string; internal_reasoning?: string; request?: string };
  /** Request fields the model supports, with ranges: the catalog's supported_parameters. */
  parameters: Record<string, ParameterDescriptor>;
  /** Data-handling flags. */
  compliance: { zdr: boolean; hipaa: boolean; [flag: string]: boolean };
  /** Streaming pace of this model, over the configuration's. */
  timing?: Timing;
  /** What this model's generated replies hold, over the configuration's. */
  content?: ContentRef;
}

/** The text a generated reply holds (`prose`, the default, or markdown, code, unicode, long words). */
export type ContentProfileName = 'prose' | 'markdown' | 'code' | 'unicode' | 'long-words';
/** How a stream is cut: `bytes` writes each event in pieces that end inside multi-byte characters
 * and inside the data: line; `fence` puts a markdown fence's backticks across two deltas. */
export type ContentSplit = 'none' | 'bytes' | 'fence';
/** A profile and a split as the x-mock-content header writes them (`unicode; split=bytes`), or
 * as fields. */
export type ContentRef = string | { profile?: ContentProfileName; split?: ContentSplit };

/** How a stream is paced. Zeros (the default) send everything at once. */
export interface Timing {
  /** Time to first token. */
  ttft_ms?: number;
  /** Pace after the first token; 0 is as fast as possible. */
  tokens_per_second?: number;
  /** Each pause varies by up to this fraction, seeded per request. */
  jitter?: number;
  /** Tokens per chunk. */
  chunk_tokens?: number;
  /** A comment line (`: keep-alive`) this often while the first token is awaited. */
  keepalive_ms?: number;
}

/** A fault by name, with its parameters (`retry_after_ms`, `after_chunks`, `delay_ms`...). */
export type FaultRef = string | { name: string; params?: Record<string, string | number> };

/** What a scenario matches; every given condition must hold. */
export interface ScenarioMatch {
  model?: string;
  /** Key id (never the key itself). */
  key?: string;
  /** The last user message: a substring in any case, or `/regex/flags` as written. */
  last_user?: string;
  /** The system or developer message: a substring in any case, or `/regex/flags` as written. */
  system?: string;
  /** true: tools are offered; false: none; a list: these function names are all offered. */
  tools?: boolean | string[];
  /** The conversation ends with a tool result: any (true), none (false), or of this tool, saying this. */
  tool_result?: boolean | { name?: string; content?: string };
  response_format?: 'text' | 'json_object' | 'json_schema';
  stream?: boolean;
  /** The whole conversation (ids not compared): what a recording matches. */
  messages?: ConversationMessage[];
  /** The fields that shape an answer (max_tokens, stop, temperature...), exactly as sent: the
   * request must send these and no other of them. */
  parameters?: Record<string, unknown>;
}

/** A message as a recording matches it: what the client said, not the ids the server made up. */
export interface ConversationMessage {
  role: string;
  content?: string | null;
  tool_calls?: { name: string; arguments: string }[];
}

export interface ScenarioReply {
  /** The content; with `chunks`, the stream sends exactly these pieces. */
  text?: string;
  chunks?: string[];
  /** Calls to make; arguments are generated from the function's schema when not given. */
  tool_calls?: { name: string; arguments?: unknown; id?: string }[];
  /** Refuse: finish_reason content_filter, with this text as the refusal. */
  refusal?: string;
  /** Reasoning tokens spent before the answer (counted in max_tokens and usage). */
  reasoning_tokens?: number;
  /** An HTTP error instead of a completion. */
  error?: { status: number; message: string; type?: string; code?: string; headers?: Record<string, string> };
  /** A fault of the catalogue for this request. */
  fault?: FaultRef;
  /** As recorded. */
  finish_reason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /** As recorded: the reply is then replayed as it is (max_tokens and stop are not applied again). */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number; [detail: string]: unknown };
  /** Milliseconds before each of `chunks` (the first from the request), or before the whole
   * answer when not streamed. */
  delays_ms?: number[];
}

export interface Scenario {
  /** Shown in the journal and in --strict-scenarios errors. */
  name: string;
  match: ScenarioMatch;
  reply: ScenarioReply;
  timing?: Timing;
  /** What the generated part of its reply holds, over the model's. */
  content?: ContentRef;
  /** Set by `conformance mock --record`. */
  recorded?: Recorded;
}

export interface Recorded {
  /** ISO 8601. */
  at: string;
  upstream: string;
  status?: number;
  /** How the upstream's answer departs from the document, one line per violation. */
  drift?: string[];
}

export interface FaultRate {
  /** Chance per chat request, 0..1. */
  rate: number;
  /** Faults drawn from, uniformly. */
  pool: FaultRef[];
  seed?: number;
}

export interface KeyDef {
  /** Shown in the journal and logs instead of the key. */
  id: string;
  key: string;
  models: string[];
}

export interface MockConfig {
  keys: KeyDef[];
  models: ModelDef[];
  /** First match decides the reply; unmatched requests get the generated reply. */
  scenarios?: Scenario[];
  /** An unmatched request is a 4xx naming the closest scenario instead of a generated reply. */
  strict_scenarios?: boolean;
  timing?: Timing;
  /** What generated replies hold, for every model. */
  content?: ContentRef;
  /** Faults applied to every request, or drawn at a rate. */
  faults?: { always?: FaultRef[]; random?: FaultRate };
  /** Most requests the journal keeps (oldest dropped first). */
  journal_size?: number;
  /** Most bytes the journal's entries hold, bodies included (oldest dropped first). */
  journal_bytes?: number;
  /** What a request body may be; past it, a 4xx naming the limit (mock/core/limits.ts has the defaults). */
  limits?: Partial<BodyLimits>;
  /** Served as it is at /models.json (a recording's), instead of the catalog derived from models. */
  catalog?: Record<string, unknown>;
  /** The cross-origin policy; without it, loopback origins and any requested header are allowed. */
  cors?: CorsPolicy;
  /** Host names a request may be addressed to besides IP addresses, localhost and *.localhost
   * (over HTTP; the guard against DNS rebinding). */
  allowed_hosts?: string[];
}

export interface BodyLimits {
  /** Bytes of the body. */
  body_bytes: number;
  /** Levels of nested objects and arrays (the body's own object is level 1). */
  depth: number;
  /** Keys of any one object. */
  keys: number;
  /** Items of any one array (the conversation's messages among them). */
  items: number;
}

export interface CorsPolicy {
  /** Origins a page may call from besides the loopback ones, or `*` (never the /__mock/ routes). */
  origins?: string[];
  /** The request headers a page may send. */
  headers?: string[];
}
