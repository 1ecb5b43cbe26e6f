// /v1/models per key and /models.json, both derived from the one list of model definitions.
import type { KeyDef, MockConfig, ModelDef } from '../config/types.js';

export function modelList(config: MockConfig, key: KeyDef) {
  const byId = new Map(config.models.map((m) => [m.id, m]));
  return {
    object: 'list',
    data: key.models
      .map((id) => byId.get(id))
      .filter((m): m is ModelDef => !!m)
      .map((m) => ({ id: m.id, object: 'model', created: m.created, owned_by: m.owned_by })),
  };
}

/** The catalog entry of one model, in provider-listing schema 2.4. */
export function catalogEntry(m: ModelDef) {
  const inputPricing = [{ type: 'prompt', unit: 'token', cost_usd: m.pricing.prompt }];
  if (m.pricing.cached_prompt) inputPricing.push({ type: 'cached_prompt', unit: 'token', cost_usd: m.pricing.cached_prompt });
  const outputPricing = [{ type: 'completion', unit: 'token', cost_usd: m.pricing.completion }];
  if (m.pricing.internal_reasoning) outputPricing.push({ type: 'internal_reasoning', unit: 'token', cost_usd: m.pricing.internal_reasoning });
  return {
    schema_version: '2.4',
    id: m.id,
    name: m.name,
    created: m.created,
    quantization: m.quantization,
    input_modalities: [{ type: 'text', supported_inputs: { max_context_length: { value: m.context_length, unit: 'token' } }, pricing: inputPricing }],
    output_modalities: [
      {
        type: 'text',
        supported_parameters: m.parameters,
        max_length: { value: m.max_output_tokens, unit: 'token' },
        streaming: true,
        pricing: outputPricing,
      },
    ],
    ...(m.pricing.request ? { pricing: [{ type: 'request', unit: 'request', cost_usd: m.pricing.request }] } : {}),
    compliance: m.compliance,
    is_ready: true,
  };
}

export function catalogDocument(config: MockConfig) {
  return { data: config.models.map(catalogEntry) };
}
