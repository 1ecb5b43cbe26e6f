// Live control: what the mock serves differently, switched while it runs: faults, content and pace
// for the next N requests or until reset, for one key, one model or all. One implementation for
// every way in (the dashboard, curl on /__mock/control, `mock.control` in-process): plain state and
// a schema-checked change. Pure, like the rest of the core: it runs in a page too.
import { validator } from '../../schemas/index.js';
import type { MockConfig, Timing } from '../config/types.js';
import { textOf } from './bytes.js';
import { parseContent, SPLITS, type ContentChoice } from './content/choice.js';
import { PROFILE_NAMES } from './content/profiles.js';
import { errorReply } from './errors.js';
import { FAULTS, type Fault } from './faults/index.js';
import { resolveFaults, type SelectedFault } from './faults/select.js';
import type { MockReply, MockRequest } from './types.js';

export const CONTROL_PATH = '/__mock/control';

/** Pace as the control takes it: the parts of a configuration's timing a developer turns live. */
export type Pace = Pick<Timing, 'ttft_ms' | 'tokens_per_second' | 'jitter'>;

/** What the next requests get (control.schema.json, $defs/setting). */
export interface ControlSetting {
  /** Faults as the x-mock-fault header writes them: `rate-limited; retry_after_ms=500; times=1`. */
  fault?: string;
  /** A profile and split as the x-mock-content header writes them: `markdown; split=fence`. */
  content?: string;
  pace?: Pace;
  /** Requests it applies to; absent: until reset. */
  times?: number;
  /** A key's id (never the key). */
  key?: string;
  model?: string;
}

/** A setting in effect: what was asked, its id, and the requests each part has left (null: until reset). */
export interface ControlEntry extends ControlSetting {
  id: number;
  left: { fault?: number | null; content?: number | null; pace?: number | null };
}

export interface ControlState {
  object: 'mock.control';
  settings: ControlEntry[];
}

/** What touched one request, as its journal entry records it. */
export interface ControlTouch {
  id: number;
  fault?: string;
  content?: string;
  pace?: Pace;
}

/** What the settings in effect give one request. */
export interface Applied {
  faults: SelectedFault[];
  content?: ContentChoice;
  pace?: Pace;
  /** Names the content and pace given, for the reply cache: a request under another pace is another reply. */
  shape: string;
  touched: ControlTouch[];
}

/** A refused change: the field it names and the code the 400 carries. */
export class ControlError extends Error {
  constructor(
    message: string,
    readonly param: string | null,
    readonly code: string,
  ) {
    super(message);
  }
}

interface Part<T> {
  value: T;
  left: number;
}

/** One use of a part, when it has any left: its value over what earlier settings gave this request. */
function use<T extends object>(part: Part<T> | undefined, given: T | undefined): T | undefined {
  if (!part || part.left <= 0) return undefined;
  part.left--;
  return { ...given, ...part.value };
}

interface Active {
  id: number;
  setting: ControlSetting;
  faults: Part<SelectedFault>[];
  content?: Part<ContentChoice>;
  pace?: Part<Pace>;
}

/** Who sent a request, worked out only when a setting is scoped: most requests never need it. */
export interface Sender {
  chat: boolean;
  keyId(): string | undefined;
  model(): string | undefined;
}

const validSetting = validator('control#/$defs/setting');
const validSettings = validator('control#/$defs/settings');
const count = (n: number) => (Number.isFinite(n) ? n : null);

function entryOf(a: Active): ControlEntry {
  const left: ControlEntry['left'] = {};
  if (a.faults.length) left.fault = count(Math.max(...a.faults.map((f) => f.left)));
  if (a.content) left.content = count(a.content.left);
  if (a.pace) left.pace = count(a.pace.left);
  return { id: a.id, ...a.setting, left };
}

export class Control {
  private settings: Active[] = [];
  private nextId = 1;
  private readonly keyIds: string[];
  private readonly secrets: Set<string>;
  private readonly modelIds: string[];
  /** Told of every change, a request's use of a setting included (the dashboard pushes it on). */
  onChange?: () => void;

  constructor(config: MockConfig) {
    this.keyIds = config.keys.map((k) => k.id);
    this.secrets = new Set(config.keys.map((k) => k.key));
    this.modelIds = config.models.map((m) => m.id);
  }

  /** Whether any setting is in effect: the hot path asks this and nothing else when none is. */
  get active(): boolean {
    return this.settings.length > 0;
  }

  get(): ControlState {
    return { object: 'mock.control', settings: this.settings.map(entryOf) };
  }

  /** Adds a setting; throws ControlError, naming the field, on a bad one (nothing changes then). */
  set(setting: ControlSetting): ControlState {
    const v = validSetting(setting);
    if (!v.ok) throw schemaError(v.errors);
    this.settings.push(this.compile(setting));
    return this.changed();
  }

  /** Every setting at once, in place of those before; all or nothing. */
  replace(settings: ControlSetting[]): ControlState {
    const v = validSettings({ settings });
    if (!v.ok) throw schemaError(v.errors);
    const compiled = settings.map((s, i) => {
      try {
        return this.compile(s);
      } catch (e) {
        const c = e as ControlError;
        throw new ControlError(`settings[${i}].${c.message}`, c.param && `settings[${i}].${c.param}`, c.code);
      }
    });
    this.settings = compiled;
    return this.changed();
  }

  /** Ends one setting; false when there is none of that id. */
  remove(id: number): boolean {
    const before = this.settings.length;
    this.settings = this.settings.filter((a) => a.id !== id);
    if (this.settings.length === before) return false;
    this.changed();
    return true;
  }

  /** Back to the configuration: no setting in effect. */
  reset(): ControlState {
    this.settings = [];
    return this.changed();
  }

  /** What the settings give this request, counting it against each part that applies; undefined
   * when none applies. Faults apply to every API request, content and pace to chat requests. */
  take(sender: Sender): Applied | undefined {
    let applied: Applied | undefined;
    let spent = false;
    for (const a of this.settings) {
      if (a.setting.key !== undefined && sender.keyId() !== a.setting.key) continue;
      if (a.setting.model !== undefined && (!sender.chat || sender.model() !== a.setting.model)) continue;
      const touch: ControlTouch = { id: a.id };
      const faults = a.faults.filter((f) => f.left > 0);
      if (faults.length) {
        applied ??= { faults: [], shape: '', touched: [] };
        for (const f of faults) {
          f.left--;
          applied.faults.push(f.value);
        }
        touch.fault = faults.map((f) => f.value.ref).join(', ');
      }
      const content = sender.chat ? use(a.content, applied?.content) : undefined;
      const pace = sender.chat ? use(a.pace, applied?.pace) : undefined;
      if (content || pace) {
        applied ??= { faults: [], shape: '', touched: [] };
        if (content) {
          applied.content = content;
          applied.shape += `c${a.id}`;
          touch.content = a.setting.content;
        }
        if (pace) {
          applied.pace = pace;
          applied.shape += `p${a.id}`;
          touch.pace = a.pace!.value;
        }
      }
      if (touch.fault || touch.content || touch.pace) {
        applied!.touched.push(touch);
        spent = true;
      }
    }
    if (spent) {
      // A setting whose every part is used up has ended.
      this.settings = this.settings.filter((a) => a.faults.some((f) => f.left > 0) || (a.content?.left ?? 0) > 0 || (a.pace?.left ?? 0) > 0);
      this.onChange?.();
    }
    return applied;
  }

  /** The catalogue a page offers: faults with what they are (a failure a frontend meets, a deviation
   * from the document and the checks it fails, a legal variation, a hostile transport) and their
   * parameters with default and help; profiles, splits, key ids, models. */
  options() {
    return {
      faults: FAULTS.map((f) => ({
        name: f.name,
        description: f.description,
        kind: faultKind(f),
        fails: f.fails,
        params: Object.entries(f.params ?? {}).map(([name, p]) => ({ name, default: p.default, describe: p.describe })),
      })),
      profiles: PROFILE_NAMES,
      splits: SPLITS,
      keys: this.keyIds,
      models: this.modelIds,
    };
  }

  private changed(): ControlState {
    this.onChange?.();
    return this.get();
  }

  private compile(setting: ControlSetting): Active {
    const times = setting.times ?? Infinity;
    let faults: Part<SelectedFault>[] = [];
    if (setting.fault !== undefined) {
      try {
        // The x-mock-fault header's own parser, so a bad fault gets the same message.
        faults = resolveFaults(setting.fault.split(',')).map((f) => ({ value: f, left: f.params.times !== undefined ? Number(f.params.times) : times }));
      } catch (e) {
        throw new ControlError(`fault: ${(e as Error).message}`, 'fault', 'unknown_fault');
      }
      if (!faults.length) throw new ControlError('fault: names no fault', 'fault', 'unknown_fault');
    }
    let content: Part<ContentChoice> | undefined;
    if (setting.content !== undefined) {
      try {
        content = { value: parseContent(setting.content), left: times };
      } catch (e) {
        throw new ControlError(`content: ${(e as Error).message}`, 'content', 'unknown_content');
      }
    }
    // Never echoed: a key given in place of its id must not come back in an answer.
    if (setting.key !== undefined && !this.keyIds.includes(setting.key))
      throw new ControlError(`key: ${this.secrets.has(setting.key) ? 'that is a key; give its id' : 'no key has this id'} (the ids are ${this.keyIds.join(', ')})`, 'key', 'unknown_key');
    if (setting.model !== undefined && !this.modelIds.includes(setting.model))
      throw new ControlError(`model: no model "${setting.model.slice(0, 100)}" (the models are ${this.modelIds.join(', ')})`, 'model', 'unknown_model');
    const kept: ControlSetting = { ...setting };
    if (kept.key !== undefined && this.secrets.has(kept.key)) delete kept.key;
    return { id: this.nextId++, setting: kept, faults, content, pace: setting.pace ? { value: { ...setting.pace }, left: times } : undefined };
  }
}

/** What a fault is, for a page to group the catalogue by. */
function faultKind(f: Fault): 'frontend' | 'deviation' | 'legal' | 'hostile' {
  if (f.frontend) return 'frontend';
  if (f.hostile) return 'hostile';
  return f.fails.length ? 'deviation' : 'legal';
}

function schemaError(errors: string[]): ControlError {
  const param = /^\/([^/:]+)/.exec(errors[0] ?? '')?.[1] ?? null;
  return new ControlError(`invalid control: ${errors.join('; ')}`, param, 'invalid_control');
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const ok = (body: unknown): MockReply => ({ status: 200, headers: JSON_HEADERS, body: JSON.stringify(body) });
const refused = (e: ControlError) => errorReply(400, e.message, 'invalid_request_error', e.code, e.param);

/** The control API over the core's plain requests: GET the state (and /options, the catalogue), POST
 * a setting, PUT every setting, DELETE them all (or /ID, one). */
export function controlRoute(control: Control, req: MockRequest, path: string, method: string): MockReply {
  const rest = path.slice(CONTROL_PATH.length);
  if (rest === '/options') return method === 'GET' ? ok(control.options()) : notAllowed(path, 'GET');
  if (rest && !/^\/\d+$/.test(rest)) return errorReply(404, `No route for ${method} ${path}.`, 'invalid_request_error', 'not_found');
  if (rest) {
    if (method !== 'DELETE') return notAllowed(path, 'DELETE');
    return control.remove(Number(rest.slice(1))) ? ok(control.get()) : errorReply(404, `No setting ${rest.slice(1)} is in effect.`, 'invalid_request_error', 'not_found');
  }
  if (method === 'GET') return ok(control.get());
  if (method === 'DELETE') return ok(control.reset());
  if (method !== 'POST' && method !== 'PUT') return notAllowed(path, 'GET, POST, PUT, DELETE');
  let body: unknown;
  try {
    body = JSON.parse(textOf(req.body ?? ''));
  } catch (e) {
    return errorReply(400, `The control body is not valid JSON: ${(e as Error).message}`, 'invalid_request_error', 'invalid_json');
  }
  try {
    if (method === 'POST') return ok(control.set(body as ControlSetting));
    const v = validSettings(body);
    if (!v.ok) throw schemaError(v.errors);
    return ok(control.replace((body as { settings: ControlSetting[] }).settings));
  } catch (e) {
    if (e instanceof ControlError) return refused(e);
    throw e;
  }
}

function notAllowed(path: string, allow: string): MockReply {
  return { ...errorReply(405, `${path} takes ${allow}.`, 'invalid_request_error', 'method_not_allowed'), headers: { ...JSON_HEADERS, allow } };
}
