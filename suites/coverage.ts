// The map of the document: every statement of chat-api.md (each sentence, each table row), quoted,
// with the checks that enforce it, the reason it cannot be tested from outside, or why it states no
// rule. `conformance list --coverage` prints it; test/coverage.test.ts keeps it whole and true.

export type Coverage = { section: string; quote: string; checks: string[] } | { section: string; quote: string; untestable: string } | { section: string; quote: string; informative: string };

export const COVERAGE: Coverage[] = [
  { section: '', quote: 'This document covers the whole service: a chat completion operation, a model listing operation and a public model catalog.', informative: 'describes the document' },
  { section: '', quote: 'It is the only document.', informative: 'describes the document' },
  { section: '1', quote: 'The service is a hosted inference service for language models.', informative: 'describes the service' },
  { section: '1', quote: 'It offers:', informative: 'introduces the list below' },
  {
    section: '1.1',
    quote: 'Chat completion: given a model id and a conversation, it returns a generated assistant message, either as one response or as a stream of server-sent events.',
    checks: ['chat.role.user', 'chat.response-shape', 'stream.events'],
  },
  { section: '1.2', quote: 'Model listing: it returns the models that the calling API key may use.', checks: ['models.list-shape', 'auth.key-scope'] },
  {
    section: '1.3',
    quote: 'A public, unauthenticated catalog document with pricing, context length, precision, supported parameters and data-handling flags for the models.',
    checks: ['catalog.available', 'auth.catalog-public', 'catalog.pricing', 'catalog.context-length', 'catalog.precision', 'catalog.supported-parameters', 'catalog.data-handling'],
  },
  {
    section: '1',
    quote: "The service is in a pre-launch phase: API access is by invitation, and prices published on the service's website are estimates.",
    untestable: 'a policy of access and a statement about the website, not a behaviour of the API',
  },
  { section: '1', quote: 'The base address is `{base_url}`.', informative: 'names a placeholder: --base-url' },
  { section: '1', quote: 'The website that hosts the catalog is `{site_url}`.', informative: 'names a placeholder: --site-url' },
  { section: '2.1', quote: '`model` | string | yes | Id of the model to use.', checks: ['errors.missing-model', 'models.ids-usable'] },
  {
    section: '2.1',
    quote: '`messages` | array | yes | The conversation so far. Messages have the roles `system` or `developer`, `user`, `assistant`, `tool`.',
    checks: ['errors.missing-messages', 'errors.messages-not-array', 'chat.role.system', 'chat.role.developer', 'chat.role.user', 'chat.role.assistant', 'chat.role.tool'],
  },
  {
    section: '2.1',
    quote: '`max_tokens` | integer | no | Maximum number of tokens to generate. The count includes reasoning tokens.',
    checks: ['chat.max-tokens', 'chat.length-only-at-cap', 'parameters.in-range', 'parameters.out-of-range'],
  },
  { section: '2.1', quote: '`temperature` | number | no | Sampling temperature.', checks: ['parameters.in-range'] },
  { section: '2.1', quote: '`top_p` | number | no | Nucleus sampling parameter.', checks: ['parameters.in-range'] },
  { section: '2.1', quote: '`stop` | string or array of string | no | Stop sequences; at most 4.', checks: ['stop.string', 'stop.array', 'stop.ends-generation', 'stop.five-refused'] },
  { section: '2.1', quote: '`stream` | boolean | no | When true, the response is delivered as server-sent events.', checks: ['chat.stream-false', 'stream.content-type', 'stream.events'] },
  { section: '2.1', quote: '`stream_options` | object | no | Streaming options. The documented key is `include_usage` (boolean).', checks: ['usage.stream-present'] },
  { section: '2.1', quote: '`tools` | array | no | Function definitions the model may call.', checks: ['tools.finish-reason', 'tools.result-answered', 'chat.role.tool'] },
  {
    section: '2.1',
    quote: '`tool_choice` | string or object | no | String values: `auto`, `none`, `required`; or an object that names a function.',
    checks: ['tools.finish-reason', 'tools.required', 'tools.none', 'tools.named'],
  },
  {
    section: '2.1',
    quote: '`response_format` | object | no | Requests structured output; the kinds are `json_object` and `json_schema`.',
    checks: ['structured.json-object', 'structured.json-schema'],
  },
  { section: '2.1', quote: '`reasoning_effort` | string | no | One of `low`, `medium`, `high`; applies to reasoning models.', checks: ['parameters.in-range', 'catalog.enum-values'] },
  { section: '2.1', quote: '`seed` | integer | no | Best-effort determinism.', checks: ['parameters.in-range', 'load.seed-reproducible'] },
  { section: '2.1', quote: '`service_tier` | string | no | One of `priority`, `flex`; only where the model offers it.', checks: ['parameters.in-range', 'catalog.enum-values'] },
  {
    section: '2.1',
    quote: 'Per-model support for parameters, and per-model ranges, are declared in the public catalog (section 4.3).',
    checks: ['parameters.in-range', 'parameters.out-of-range', 'catalog.supported-parameters'],
  },
  {
    section: '2.2',
    quote: '`role` | string | One of `system`, `developer`, `user`, `assistant`, `tool`.',
    checks: ['chat.role.system', 'chat.role.developer', 'chat.role.user', 'chat.role.assistant', 'chat.role.tool', 'errors.unknown-role'],
  },
  {
    section: '2.2',
    quote: '`content` | string | Message text. In a response the assistant message carries `role` and `content`.',
    checks: ['chat.content', 'chat.response-shape', 'chat.assistant-role'],
  },
  {
    section: '2.2',
    quote: 'Fields of messages beyond role and content: not shown.',
    informative: 'not shown: the kit holds the server to the OpenAI-compatible convention, at level should (tool_calls, tool_call_id)',
  },
  { section: '2.3', quote: '`id` | string | Identifier of the completion.', checks: ['chat.response-shape', 'load.ids-unique'] },
  { section: '2.3', quote: '`object` | string | Constant `chat.completion`.', checks: ['chat.object'] },
  { section: '2.3', quote: '`created` | integer | Creation time of the completion.', checks: ['chat.response-shape', 'chat.created-seconds'] },
  { section: '2.3', quote: '`model` | string | Id of the model that served the request.', checks: ['chat.response-shape', 'chat.model-echo'] },
  { section: '2.3', quote: '`choices` | array of choice | See below.', checks: ['chat.response-shape', 'chat.choice-index'] },
  { section: '2.3', quote: '`usage` | object | See below.', checks: ['chat.usage'] },
  { section: '2.3', quote: 'Choice:', informative: 'introduces the table below' },
  { section: '2.3', quote: '`index` | integer | Position of the choice in `choices`.', checks: ['chat.choice-index'] },
  { section: '2.3', quote: '`message` | object | Assistant message (`role`, `content`).', checks: ['chat.assistant-role', 'chat.content', 'chat.response-shape'] },
  { section: '2.3', quote: '`finish_reason` | string | One of `stop`, `length`, `tool_calls`, `content_filter`.', checks: ['chat.finish-reason', 'stream.one-finish-reason'] },
  { section: '2.3', quote: 'Usage:', informative: 'introduces the table below' },
  { section: '2.3', quote: '`prompt_tokens` | integer', checks: ['chat.usage', 'usage.stream-shape', 'usage.stream-counts', 'load.usage-independent'] },
  { section: '2.3', quote: '`completion_tokens` | integer', checks: ['chat.usage', 'usage.stream-shape', 'usage.stream-counts'] },
  { section: '2.3', quote: '`total_tokens` | integer', checks: ['chat.usage', 'chat.usage-total', 'usage.stream-total'] },
  { section: '2.3', quote: '`prompt_tokens_details` | object with `cached_tokens` (integer)', checks: ['chat.usage-details'] },
  { section: '2.3', quote: '`completion_tokens_details` | object with `reasoning_tokens` (integer)', checks: ['chat.usage-details'] },
  {
    section: '2.3',
    quote: 'Shape of tool definitions, of the named-function form of `tool_choice`, and of the contents of `response_format`: not shown.',
    informative: 'not shown: the kit holds the server to the OpenAI-compatible convention, at level should (tools.*, structured.*)',
  },
  { section: '2.4', quote: 'List: `object` (string, constant `list`), `data` (array of model).', checks: ['models.list-shape', 'models.object-constants'] },
  { section: '2.4', quote: 'Model:', informative: 'introduces the table below' },
  { section: '2.4', quote: '`id` | string | Model id, as used in the `model` request field.', checks: ['models.list-shape', 'models.unique-ids', 'models.ids-usable'] },
  { section: '2.4', quote: '`object` | string | Constant `model`.', checks: ['models.object-constants'] },
  { section: '2.4', quote: '`created` | integer | Creation time of the model entry.', checks: ['models.list-shape', 'models.created-seconds'] },
  { section: '2.4', quote: '`owned_by` | string | Name of the organisation that owns the model.', checks: ['models.list-shape'] },
  {
    section: '2.5',
    quote: 'A JSON document that carries, per model, pricing, context length, precision, supported parameters and data-handling flags.',
    checks: ['catalog.available', 'catalog.pricing', 'catalog.context-length', 'catalog.precision', 'catalog.supported-parameters', 'catalog.data-handling'],
  },
  { section: '2.5', quote: 'It follows a third-party provider-listing schema, version 2.4.', checks: ['catalog.schema'] },
  { section: '2.5', quote: 'Its exact fields: not shown.', informative: 'the fields come from the provider-listing schema 2.4 (catalog-2.4.md), which catalog.schema holds the document to' },
  { section: '3', quote: 'No resource with a lifecycle is shown.', informative: 'nothing to test: no lifecycle' },
  {
    section: '3',
    quote: 'The only enumerated outcome is `finish_reason` of a choice (`stop`, `length`, `tool_calls`, `content_filter`), listed in section 2.3.',
    checks: ['chat.finish-reason', 'stream.one-finish-reason'],
  },
  { section: '3', quote: 'Transitions: not shown.', informative: 'nothing to test: no transitions' },
  { section: '4.1', quote: 'Method and path | `POST {base_url}/v1/chat/completions`', checks: ['chat.role.user', 'chat.response-shape'] },
  { section: '4.1', quote: 'Header `Authorization` | `Bearer <API_KEY>`', checks: ['auth.chat.missing', 'auth.chat.malformed', 'auth.chat.key-elsewhere', 'auth.chat.wrong-key'] },
  { section: '4.1', quote: 'Header `Content-Type` | `application/json`', informative: 'a requirement on the client: the kit sends application/json on every chat request' },
  {
    section: '4.1',
    quote: 'Request body | Chat completion request (2.1). `model` and `messages` are required.',
    checks: ['errors.missing-model', 'errors.missing-messages', 'errors.invalid-json', 'fuzz.valid-served', 'fuzz.invalid-refused', 'fuzz.no-5xx-refusable'],
  },
  { section: '4.1', quote: 'Response body | Chat completion response (2.3) when `stream` is not true.', checks: ['chat.stream-false', 'chat.response-shape', 'fuzz.served-shape', 'fuzz.no-5xx'] },
  { section: '4.1', quote: 'Rules:', informative: 'introduces the rules below' },
  {
    section: '4.1.1',
    quote: 'A request without `model` or `messages` is incomplete; the resulting error is described in section 7.',
    checks: ['errors.missing-model', 'errors.missing-messages', 'errors.missing-field-4xx', 'fuzz.no-5xx-refusable'],
  },
  {
    section: '4.1.2',
    quote:
      '`finish_reason` is `length` when generation ends because of the token limit, `tool_calls` when the model calls a tool, `content_filter` when content is filtered, and `stop` for a natural end or a stop sequence.',
    checks: ['chat.max-tokens', 'chat.length-only-at-cap', 'chat.natural-stop', 'tools.finish-reason', 'stop.finish-reason', 'errors.content-filter'],
  },
  {
    section: '4.1.3',
    quote: 'When `stream` is true, the response is a stream of server-sent events (section 6).',
    checks: ['stream.content-type', 'stream.events', 'stream.complete', 'fuzz.served-shape'],
  },
  {
    section: '4.1',
    quote: 'Success status code: not shown.',
    informative: 'not shown: the kit holds the server to the OpenAI-compatible convention, at level should (catalog.status-200 for the catalog; a 2xx is a success everywhere)',
  },
  {
    section: '4.1',
    quote: 'Behaviour when a parameter is unsupported by the chosen model: not shown.',
    informative: 'not shown: a model that refuses an optional field with a JSON 4xx leaves its path not-tested, never failed',
  },
  {
    section: '4.1',
    quote: 'Shape of each streamed chunk: not shown.',
    informative: 'not shown: the kit holds the server to the OpenAI-compatible convention, at level should (stream.chunk-json, stream.chunk-schema)',
  },
  { section: '4.2', quote: 'Method and path | `GET {base_url}/v1/models`', checks: ['models.list-shape'] },
  { section: '4.2', quote: 'Header `Authorization` | `Bearer <API_KEY>`', checks: ['auth.models.missing', 'auth.models.malformed', 'auth.models.key-elsewhere', 'auth.models.wrong-key'] },
  { section: '4.2', quote: 'Request body | none', informative: 'a requirement on the client: the kit sends none' },
  { section: '4.2', quote: 'Response body | Model list (2.4), containing the models that the calling key can use.', checks: ['models.list-shape', 'auth.key-scope'] },
  { section: '4.2', quote: 'Query parameters and paging of the list: not shown.', informative: 'not shown: the kit reads the first page' },
  { section: '4.3', quote: 'Method and path | `GET {site_url}/models.json`', checks: ['catalog.available', 'catalog.status-200'] },
  { section: '4.3', quote: 'Authentication | none', checks: ['auth.catalog-public'] },
  { section: '4.3', quote: 'Response body | Catalog document (2.5).', checks: ['catalog.schema'] },
  {
    section: '5.1',
    quote: 'The operations in 4.1 and 4.2 require the header `Authorization: Bearer <API_KEY>`.',
    checks: [
      'auth.chat.missing',
      'auth.chat.malformed',
      'auth.chat.key-elsewhere',
      'auth.chat.wrong-key',
      'auth.models.missing',
      'auth.models.malformed',
      'auth.models.key-elsewhere',
      'auth.models.wrong-key',
    ],
  },
  { section: '5.2', quote: 'The list in 4.2 depends on the key: it holds the models that the key can use.', checks: ['auth.key-scope', 'models.ids-usable'] },
  { section: '5.3', quote: 'The catalog in 4.3 needs no authentication.', checks: ['auth.catalog-public'] },
  { section: '5.4', quote: 'API access is granted by invitation during the pre-launch phase.', untestable: 'a policy of key issuance, not a behaviour of the API' },
  { section: '5', quote: 'How keys are created, scoped, rotated or revoked: not shown.', informative: 'not shown: nothing to test' },
  {
    section: '6.1',
    quote: 'Setting `stream` to true makes the chat completion response a stream of server-sent events instead of one JSON body.',
    checks: ['stream.content-type', 'stream.events', 'stream.complete', 'chat.stream-false'],
  },
  {
    section: '6.2',
    quote: '`stream_options` with `include_usage` set to true is the documented way to request usage information in a streamed response.',
    checks: ['usage.stream-present', 'usage.stream-absent'],
  },
  { section: '6.3', quote: 'No other events are shown.', informative: 'nothing to test: no other events' },
  {
    section: '6',
    quote: 'Event names, chunk fields and the end-of-stream marker: not shown.',
    informative: 'not shown: the kit holds the server to the OpenAI-compatible convention, at level should (stream.chunk-json, stream.chunk-schema, stream.done-marker, usage.stream-position)',
  },
  { section: '6', quote: 'Outbound webhooks or other notifications: not shown.', informative: 'not shown: nothing to test' },
  {
    section: '7',
    quote: 'The errors are described separately from the operations; the error response body, status codes and error codes: not shown.',
    informative:
      'not shown: the kit holds the server to the OpenAI-compatible convention, at level should (errors.*-4xx, errors.error-body, auth.status-401; fuzz.no-5xx-refusable: a request the server may refuse gets no 5xx)',
  },
  { section: '7', quote: '`content_filter` as a `finish_reason` belongs to a completed response (2.3) and is not an error.', checks: ['errors.content-filter'] },
  { section: '8', quote: 'Stop sequences | at most 4 | `stop` in 4.1', checks: ['stop.array', 'stop.five-refused', 'catalog.stop-limit'] },
  { section: '8', quote: 'Generated tokens | `max_tokens` caps the count; reasoning tokens are included in it | 4.1', checks: ['chat.max-tokens'] },
  { section: '8', quote: 'Per-model parameter support and ranges | declared in the public catalog | 4.1', checks: ['parameters.in-range', 'parameters.out-of-range', 'fuzz.valid-served'] },
  { section: '8', quote: 'Rate limits and quotas: not shown.', informative: 'not shown: a 429 is waited out within its Retry-After, and its checks are not-tested beyond that' },
  {
    section: '8',
    quote: 'Numeric ranges of `temperature`, `top_p`, `max_tokens`, and the context length of any model: not shown.',
    informative: 'not shown: the kit takes the ranges each model declares in the catalog',
  },
  { section: '9.1', quote: 'The operations carry the path prefix `/v1`.', checks: ['models.list-shape', 'chat.response-shape'] },
  { section: '9.2', quote: 'Models are selected by their id in the `model` field.', checks: ['models.ids-usable'] },
  { section: '9.3', quote: 'The public catalog follows a provider-listing schema at version 2.4.', checks: ['catalog.schema'] },
  { section: '9', quote: 'Deprecation policy and change notices: not shown.', informative: 'not shown: nothing to test' },
];

/** The rule-bearing statements: those mapped to checks, and those that cannot be tested from outside. */
export const ruleBearing = (c: Coverage) => !('informative' in c);

export const isMapped = (c: Coverage): c is Extract<Coverage, { checks: string[] }> => 'checks' in c;
export const isUntestable = (c: Coverage): c is Extract<Coverage, { untestable: string }> => 'untestable' in c;

/** The figure the README states: rule-bearing statements, mapped, untestable, and gaps (mapped to no check). */
export function coverageFigure(map: readonly Coverage[] = COVERAGE): { ruleBearing: number; mapped: number; untestable: number; gaps: number } {
  const rules = map.filter(ruleBearing);
  const mapped = rules.filter(isMapped);
  return { ruleBearing: rules.length, mapped: mapped.filter((c) => c.checks.length).length, untestable: rules.filter(isUntestable).length, gaps: mapped.filter((c) => !c.checks.length).length };
}
