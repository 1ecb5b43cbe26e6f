// A configuration file (JSON or YAML) to a MockConfig. A mistake names the file, the place in
// the document (path and line) and what was expected, and no server starts.
import { FileError, parseAs, readText } from '../../schemas/file.js';
import { crossCheck } from './check.js';
import type { MockConfig } from './types.js';

export class ConfigError extends FileError {}

export function loadConfigFile(file: string): MockConfig {
  let text: string;
  try {
    text = readText(file, 'configuration');
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  return parseConfig(text, file);
}

export function parseConfig(text: string, file: string): MockConfig {
  return parseAs<MockConfig>(text, file, 'mock-config', crossCheck, ConfigError);
}
