// yargs' usage failures as one line that says what was meant: an unknown command or option names the
// nearest one (`did you mean run?`), a value outside an option's choices lists them.
import type { Options } from 'yargs';
import { nearest } from '../schemas/nearest.js';
import { COMMANDS, GLOBAL_OPTIONS } from './options.js';

const COMMAND_NAMES = Object.keys(COMMANDS);

/** The flags a command takes, as typed: `--base-url`, and `--no-fuzz` for a switch that is on by default. */
function flagsOf(command: string | undefined): string[] {
  const options: Readonly<Record<string, Options>> = command && command in COMMANDS ? COMMANDS[command as keyof typeof COMMANDS].options : {};
  const names = [...Object.keys(options), ...GLOBAL_OPTIONS];
  const negated = Object.entries(options).flatMap(([name, o]) => (o.type === 'boolean' && o.default === true ? [`no-${name}`] : []));
  return [...names, ...negated];
}

const didYouMean = (given: string, names: readonly string[], prefix = '') => {
  const near = nearest(given, names);
  return near ? `: did you mean ${prefix}${near}?` : '';
};

/** One line for a usage failure yargs reports; `args` are the command line's arguments. */
export function usageMessage(msg: string, args: readonly string[]): string {
  const [first] = args;
  const command = COMMAND_NAMES.includes(first) ? first : undefined;
  const help = command ? `conformance ${command} --help` : 'conformance --help';
  // recommendCommands found a command near the one typed.
  const meant = /^Did you mean (\S+)\?$/.exec(msg);
  if (meant) return `unknown command "${first}": did you mean ${meant[1]}?`;
  const unknown = /^Unknown arguments?: (.*)$/s.exec(msg);
  if (unknown) {
    const items = unknown[1].split(', ');
    // yargs names an unknown --bas-url twice, the second time in camelCase.
    const named = items.filter((i) => !items.some((other) => other !== i && other.includes('-') && other.replace(/-(.)/g, (_, c: string) => c.toUpperCase()) === i));
    const said = named.map((item) => {
      if (!command && item === first) return `unknown command "${item}"${didYouMean(item, COMMAND_NAMES) || `: the commands are ${COMMAND_NAMES.join(', ')}`}`;
      // As typed: yargs reports --no-fuz as fuz.
      const typed = args
        .filter((a) => a.startsWith('-'))
        .map((a) => a.replace(/^-+/, '').split('=')[0])
        .find((a) => a === item || a === `no-${item}`);
      if (typed) return `unknown option --${typed}${didYouMean(typed, flagsOf(command), '--') || ` (see ${help})`}`;
      return `unexpected argument "${item}" (see ${help})`;
    });
    return said.join('; ');
  }
  if (/^Not enough non-option arguments/.test(msg) && command) return `missing arguments: conformance ${COMMANDS[command as keyof typeof COMMANDS].command}`;
  // Invalid values:\n  Argument: suite, Given: "nope", Choices: "chat", "stop", ...
  const invalid = /Argument: ([\w-]+), Given: "([^"]*)", Choices: (.*)$/m.exec(msg);
  if (invalid) {
    return notOneOf(
      invalid[1],
      invalid[2],
      [...invalid[3].matchAll(/"([^"]*)"/g)].map((m) => m[1]),
    );
  }
  return msg.replace(/\s*\n\s*/g, '; ');
}

/** A value outside a flag's choices, and the choice meant: `--reporter "htm" is not one of ...: did you mean html?` */
export function notOneOf(flag: string, given: string, choices: readonly string[]): string {
  return `--${flag} "${given}" is not one of ${choices.join(', ')}${didYouMean(given, choices)}`;
}

/** `--timeout 30s` where milliseconds are taken: the figure meant, or nothing. */
export function inMilliseconds(typed: string): number | undefined {
  const m = /^'?\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min)\s*'?$/.exec(typed);
  if (!m) return undefined;
  const ms = Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
  return Number.isInteger(ms) && ms > 0 ? ms : undefined;
}

/** A flag's value as the user typed it: yargs reads a number flag it cannot parse (`--timeout abc`)
 * as NaN, which says nothing of what was given. */
export function typedValue(name: string, parsed: unknown, args: readonly string[]): string {
  if (typeof parsed !== 'number' || !Number.isNaN(parsed)) return String(parsed);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}` && i + 1 < args.length) return `'${args[i + 1]}'`;
    if (args[i].startsWith(`--${name}=`)) return `'${args[i].slice(name.length + 3)}'`;
  }
  return 'no number';
}
