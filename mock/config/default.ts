// The configuration the mock runs with when given none: two keys with different model lists and a
// reasoning model, enough for every suite of the kit, second-key checks included.
import type { MockConfig, ModelDef, ParameterDescriptor } from './types.js';

const common: Record<string, ParameterDescriptor> = {
  max_tokens: { type: 'integer', min: 1, max: 8192, unit: 'token' },
  stop: { type: 'array', max_items: 4 },
  seed: { type: 'integer' },
  tools: { type: 'array' },
  tool_choice: { type: 'enum', values: ['auto', 'none', 'required'] },
  response_format: { type: 'unknown' },
};

const chatModel = (id: string, name: string, created: number, quantization: string | null): ModelDef => ({
  id,
  name,
  owned_by: 'mock-labs',
  created,
  context_length: 32_768,
  max_output_tokens: 8_192,
  quantization,
  pricing: { prompt: '0.0000005', completion: '0.0000015', cached_prompt: '0.00000025' },
  parameters: {
    temperature: { type: 'range', min: 0, max: 2, default: 1 },
    top_p: { type: 'range', min: 0, max: 1, default: 1 },
    ...common,
  },
  compliance: { zdr: true, hipaa: false },
});

export const DEFAULT_CONFIG: MockConfig = {
  keys: [
    { id: 'alpha', key: 'sk-mock-alpha-000000000000000000000001', models: ['mock-chat-1', 'mock-reason-1'] },
    { id: 'beta', key: 'sk-mock-beta-0000000000000000000000002', models: ['mock-chat-1', 'mock-chat-large'] },
  ],
  models: [
    chatModel('mock-chat-1', 'Mock Chat 1', 1_735_689_600, 'fp8'),
    chatModel('mock-chat-large', 'Mock Chat Large', 1_748_736_000, 'bf16'),
    {
      id: 'mock-reason-1',
      name: 'Mock Reasoning 1',
      owned_by: 'mock-labs',
      created: 1_754_006_400,
      reasoning: true,
      context_length: 131_072,
      max_output_tokens: 16_384,
      quantization: 'fp8',
      pricing: { prompt: '0.000001', completion: '0.000004', internal_reasoning: '0.000004', request: '0.0001' },
      parameters: {
        ...common,
        max_tokens: { type: 'integer', min: 1, max: 16_384, unit: 'token' },
        reasoning_effort: { type: 'enum', values: ['low', 'medium', 'high'], default: 'medium' },
        service_tier: { type: 'enum', values: ['priority', 'flex'] },
      },
      compliance: { zdr: false, hipaa: false },
    },
  ],
};
