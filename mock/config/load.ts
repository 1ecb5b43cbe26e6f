// A configuration file (JSON or YAML) to a MockConfig, read over the built-in one (extend.ts). A
// mistake names the file, the place in the document (path and line) and what was expected, and no
// server starts.
import { FileError, parseAs, readText } from '../../schemas/file.js';
import { extensionProblems, overBuiltIn } from './extend.js';
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
  return overBuiltIn(parseAs<Partial<MockConfig>>(text, file, 'mock-config', extensionProblems, ConfigError));
}
