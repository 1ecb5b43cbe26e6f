// The registry of content profiles, by the name a configuration or the x-mock-content header uses.
import type { ContentProfileName } from '../../config/types.js';
import { code } from './code.js';
import { longWords } from './long-words.js';
import { markdown } from './markdown.js';
import type { Profile } from './profile.js';
import { prose } from './prose.js';
import { unicode } from './unicode.js';

export const PROFILES: Readonly<Record<ContentProfileName, Profile>> = Object.freeze({ prose, markdown, code, unicode, 'long-words': longWords });
export const PROFILE_NAMES = Object.keys(PROFILES) as ContentProfileName[];
export const DEFAULT_PROFILE: Profile = prose;
