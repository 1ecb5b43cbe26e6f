// docs/reference/cli.md: every command of `conformance`, its positionals and its options, as
// bin/options.ts declares them to yargs.
import type { Options, PositionalOptions } from 'yargs';
import { COMMANDS, type CommandSpec } from '../../bin/options.js';
import { code, generated, table } from './markdown.js';

function typeOf(o: Options | PositionalOptions): string {
  const base = o.type ?? (o.choices ? 'string' : 'value');
  const choices = o.choices ? ` (${[o.choices].flat().map(String).join(', ')})` : '';
  return `${base}${'array' in o && o.array ? ', repeatable' : ''}${choices}`;
}

function defaultOf(o: Options | PositionalOptions): string {
  const d = o.default;
  if (d === undefined || (Array.isArray(d) && !d.length)) return '';
  return code(Array.isArray(d) ? d.join(' ') : String(d));
}

function flag(name: string, o: Options): string {
  // A switch on by default is turned off by its negation.
  if (o.type === 'boolean' && o.default === true) return `${code(`--${name}`)}, ${code(`--no-${name}`)}`;
  return code(`--${name}`);
}

function commandSection(name: string, spec: CommandSpec): string {
  const rows = [
    ...Object.entries(spec.positionals ?? {}).map(([p, o]) => [code(`<${p}>`), typeOf(o), defaultOf(o), String(o.describe ?? '')]),
    ...Object.entries(spec.options).map(([o, opts]) => [flag(o, opts), typeOf(opts), defaultOf(opts), String(opts.describe ?? '')]),
  ];
  return [`## conformance ${name}`, '', spec.describe, '', '```', `conformance ${spec.command} [options]`, '```', '', table(['option', 'takes', 'default', 'meaning'], rows)].join('\n');
}

export function cliPage(): string {
  const out = [
    generated('bin/options.ts (the options as yargs takes them)'),
    '',
    '# The command line',
    '',
    'Every command takes `--help` (and `--version`). Exit codes: [the gate in CI](../ci.md#exit-codes).',
    '',
    table(
      ['command', 'what it does'],
      Object.entries(COMMANDS).map(([name, spec]) => [`[${name}](#conformance-${name})`, spec.describe]),
    ),
  ];
  for (const [name, spec] of Object.entries(COMMANDS)) out.push('', commandSection(name, spec));
  return `${out.join('\n')}\n`;
}
