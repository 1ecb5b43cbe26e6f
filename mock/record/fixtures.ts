// Recordings on disk: one file per test (named by a request header), each a complete configuration
// of the mock, so a file also runs on its own with `conformance mock --config`. Secrets are removed
// from every text of it before it is written; writes to one file are serialized and atomic.
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Document, isPair, isScalar, isSeq, visit } from 'yaml';
import { makeFolder } from '../../engine/folders.js';
import type { Redactor } from '../../engine/redact.js';
import { hash } from '../core/random.js';
import { loadConfigFile } from '../config/load.js';
import type { KeyDef, MockConfig, ModelDef, Scenario } from '../config/types.js';

const DEFAULT_FIXTURE = 'default';
/** The key every file declares; a replay takes any Bearer key as this one. */
export const REPLAY_KEY: KeyDef = { id: 'recorded', key: 'sk-mock-replay-any-key', models: [] };

/** What /v1/models said of a model while recording. */
export interface ListedModel {
  id: string;
  owned_by?: string;
  created?: number;
}

/** A test id as a file name: kept when it is already safe, otherwise made safe and told apart by a hash. */
export function fixtureName(testId: string | undefined): string {
  if (!testId) return DEFAULT_FIXTURE;
  const safe = testId
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+|-+$/g, '')
    .slice(0, 80);
  return safe === testId ? safe : `${safe || 'test'}-${hash(testId).toString(36)}`;
}

export class Fixtures {
  private readonly configs = new Map<string, MockConfig>();
  /** Bumped by each addition to a file: what serves it is rebuilt then, and only then. */
  private readonly versions = new Map<string, number>();
  private writing = new Map<string, Promise<void>>();

  constructor(
    readonly dir: string,
    private readonly redactor: Redactor,
  ) {
    try {
      makeFolder(dir);
    } catch (e) {
      throw new Error(`the recordings' folder ${dir} cannot be made: ${(e as Error).message}`);
    }
    for (const f of readdirSync(dir)) if (f.endsWith('.yaml')) this.configs.set(f.slice(0, -5), loadConfigFile(join(dir, f)));
  }

  file(name: string): string {
    return join(this.dir, `${name}.yaml`);
  }

  /** The recordings of one test, or none. */
  get(name: string): MockConfig | undefined {
    return this.configs.get(name);
  }

  names(): string[] {
    return [...this.configs.keys()];
  }

  version(name: string): number {
    return this.versions.get(name) ?? 0;
  }

  /** The next scenario's number in that file. */
  count(name: string): number {
    return this.configs.get(name)?.scenarios?.length ?? 0;
  }

  /** Adds a recording (and the models it names, or the catalog) and writes the file. */
  add(name: string, scenario: Scenario | undefined, listed: ListedModel[] = [], catalog?: Record<string, unknown>): Promise<void> {
    const config = this.configs.get(name) ?? { keys: [{ ...REPLAY_KEY }], models: [], strict_scenarios: true, scenarios: [] };
    if (catalog) config.catalog = catalog;
    for (const m of listed) upsertModel(config, m);
    if (scenario) {
      if (scenario.match.model) upsertModel(config, { id: scenario.match.model });
      (config.scenarios ??= []).push(scenario);
    }
    config.keys[0].models = config.models.map((m) => m.id);
    this.configs.set(name, config);
    this.versions.set(name, this.version(name) + 1);
    // The replay's own key is no secret (a replay takes any key as it), and shares `sk-mock-` with the
    // mock's keys, which a recording of the mock redacts runs of.
    const text = this.redactor.text(header(name)) + yamlOf(config, (value) => (value === REPLAY_KEY.key ? value : this.redactor.text(value)));
    const previous = this.writing.get(name) ?? Promise.resolve();
    const next = previous.then(() => {
      const file = this.file(name);
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, file);
    });
    this.writing.set(
      name,
      next.catch(() => {}),
    );
    return next;
  }
}

const header = (name: string) =>
  `# Recorded by conformance mock --record (${name}). A complete mock configuration: replay it with\n# conformance mock --replay <this folder>, or on its own with conformance mock --config <this file>.\n`;

/** What a recording knows of a model is its id (and what the model list said); the rest is the
 * mock's placeholder: a replay answers from recordings, not from these figures. */
function upsertModel(config: MockConfig, m: ListedModel): void {
  const found = config.models.find((d) => d.id === m.id);
  if (found) {
    if (m.owned_by) found.owned_by = m.owned_by;
    if (m.created !== undefined) found.created = m.created;
    return;
  }
  const def: ModelDef = {
    id: m.id,
    name: m.id,
    owned_by: m.owned_by ?? 'recorded',
    created: m.created ?? 0,
    context_length: 131_072,
    max_output_tokens: 32_768,
    quantization: null,
    pricing: { prompt: '0', completion: '0' },
    parameters: {},
    compliance: { zdr: false, hipaa: false },
  };
  config.models.push(def);
}

/** The file's YAML, every value in it redacted, a recording's pauses on one line each: a list of
 * numbers reads better flat. Each text is redacted as a value, not the YAML as a text: a redaction at
 * the start of a value (`key: [REDACTED]…`) would be YAML's flow sequence, or no YAML at all, where
 * the writer quotes the value it is given. */
function yamlOf(config: MockConfig, redact: (text: string) => string): string {
  const doc = new Document(config);
  visit(doc, {
    Pair(_key, pair) {
      if (isPair(pair) && isScalar(pair.key) && pair.key.value === 'delays_ms' && isSeq(pair.value)) pair.value.flow = true;
    },
    // A key of a map names a field (the configuration's, a request's parameter, a kept header),
    // and is left: a word of it may be a word of a test's key (`upstream`), and the file no
    // configuration. What the client and the upstream said is in the values, and in the bodies,
    // redacted before they were read (server.ts).
    Scalar(key, node) {
      if (key !== 'key' && typeof node.value === 'string') node.value = redact(node.value);
    },
  });
  return doc.toString({ lineWidth: 0 });
}
