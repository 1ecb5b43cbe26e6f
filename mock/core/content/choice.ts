// Which content a reply holds and how its stream is cut, as written in a configuration (`content`
// for all models, per model, per scenario) or per request in the x-mock-content header:
// `markdown`, `unicode; split=bytes`, `split=fence`, or in a file { profile, split }.
import type { ContentRef, ContentProfileName, ContentSplit } from '../../config/types.js';
import { PROFILE_NAMES } from './profiles.js';
import { echoed } from '../errors.js';
import { nearest } from '../../../schemas/nearest.js';

export interface ContentChoice {
  profile?: ContentProfileName;
  split?: ContentSplit;
}

export const SPLITS: readonly ContentSplit[] = ['none', 'bytes', 'fence'];
export const NO_CHOICE: ContentChoice = Object.freeze({});

const isProfile = (name: string): name is ContentProfileName => (PROFILE_NAMES as string[]).includes(name);
const isSplit = (name: string): name is ContentSplit => (SPLITS as string[]).includes(name);
const list = (names: readonly string[]) => names.join(', ');

/** Throws, naming what is wrong, on an unknown profile, split or parameter. */
export function parseContent(ref: ContentRef): ContentChoice {
  let profile: string | undefined;
  const params: Record<string, string> = {};
  if (typeof ref === 'string') {
    for (const [i, part] of ref
      .split(';')
      .map((s) => s.trim())
      .entries()) {
      if (!part) continue;
      const at = part.indexOf('=');
      // The profile comes first, and may be left out: `split=bytes` keeps the configured one.
      if (at < 0 && i === 0) profile = part;
      else if (at <= 0) throw new Error(`"${echoed(part)}" is no parameter (write split=VALUE)`);
      else params[part.slice(0, at).trim()] = part.slice(at + 1).trim();
    }
  } else {
    profile = ref.profile;
    if (ref.split !== undefined) params.split = ref.split;
  }
  const out: ContentChoice = {};
  if (profile !== undefined) {
    if (!isProfile(profile)) {
      const near = nearest(profile, PROFILE_NAMES);
      throw new Error(`unknown content profile "${echoed(profile)}"${near ? `: did you mean ${near}?` : ''} (the profiles are ${list(PROFILE_NAMES)})`);
    }
    out.profile = profile;
  }
  for (const [k, v] of Object.entries(params)) {
    if (k !== 'split') throw new Error(`content takes no parameter "${echoed(k)}" (it takes split)`);
    if (!isSplit(v)) throw new Error(`unknown split "${echoed(v)}" (one of ${list(SPLITS)})`);
    out.split = v;
  }
  return out;
}

/** Later choices win, field by field: a scenario's split keeps the model's profile. */
export function mergeContent(...choices: (ContentChoice | undefined)[]): ContentChoice {
  let out = NO_CHOICE;
  for (const c of choices) if (c && (c.profile || c.split)) out = { ...out, ...(c.profile ? { profile: c.profile } : {}), ...(c.split ? { split: c.split } : {}) };
  return out;
}
