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
}
