// What `conformance mock` says when it starts: where it listens and who may call it, the
// configuration in use, the faults that are on, and the keys to copy (test values: the mock's keys
// are no secrets).
import type { ContentRef, MockConfig } from './config/types.js';
import { PROFILE_NAMES } from './core/content/profiles.js';
import { PACES, paceText } from './core/timing.js';
import { REASONING_TOKENS } from './core/generate.js';
import { boundaryOf, isLoopbackAddress, type Boundary } from './boundary.js';

/** `1 scenario`, `3 models`. */
const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

const shown = (c: ContentRef) => (typeof c === 'string' ? c : [c.profile, c.split && `split=${c.split}`].filter(Boolean).join('; '));

export function banner(
  url: string,
  config: MockConfig,
  from: { file?: string; faults: string[]; host?: string; tls?: { cert: string; clientCa?: string }; dashboard?: boolean; paceFlag?: boolean },
): string {
  const c = config;
  const random = c.faults?.random;
  const faults = [...(c.faults?.always ?? []).map((f) => (typeof f === 'string' ? f : f.name)), ...from.faults];
  const width = Math.max(...c.keys.map((k) => k.id.length));
  return [
    `mock listening on ${url} (base URL and site URL)`,
    // Said when the caller says whether it serves one (the CLI does).
    ...(from.dashboard === undefined
      ? []
      : [
          from.dashboard
            ? `dashboard: ${url}/__mock/ (every request as it arrives; faults, content and pace switched live)`
            : 'dashboard: off (--no-dashboard); the live control stays at /__mock/control',
        ]),
    ...boundaryLines(boundaryOf(c), from.host ?? '127.0.0.1'),
    ...(from.tls
      ? [
          `TLS: certificate ${from.tls.cert}${from.tls.clientCa ? `; client certificates required, signed by a CA of ${from.tls.clientCa}` : ''} (a client that does not trust its CA: conformance run --ca-cert FILE)`,
        ]
      : []),
    `configuration: ${from.file ?? 'built-in'}; ${counted(c.models.length, 'model')}, ${counted(c.scenarios?.length ?? 0, 'scenario')}${c.strict_scenarios ? ' (strict)' : ''}`,
    `faults on every request: ${faults.length ? faults.map((f) => `"${f}"`).join(', ') : 'none'}`,
    ...(random ? [`faults at random, on ${Math.round(random.rate * 100)}% of chat requests: ${random.pool.map((f) => `"${typeof f === 'string' ? f : f.name}"`).join(', ')}`] : []),
    'a fault on one request: the x-mock-fault header (conformance mock --list-faults)',
    `content of generated replies: ${[shown(c.content ?? 'prose'), ...c.models.filter((m) => m.content).map((m) => `${m.id}: ${shown(m.content!)}`)].join(', ')}`,
    `content on one request: the x-mock-content header (${PROFILE_NAMES.join(', ')}; split=bytes or split=fence)`,
    paceLine(c, from.paceFlag),
    ...reasoningLines(c),
    'keys (test values, copy one into your client):',
    ...c.keys.map((k) => `  ${k.id.padEnd(width)}  ${k.key}  models: ${k.models.join(', ')}`),
    '',
  ].join('\n');
}

/** What each reasoning model spends thinking before it answers: counted within max_tokens, so a
 * small cap comes back cut (finish_reason "length"), a tool call included, before a word is said. */
function reasoningLines(c: MockConfig): string[] {
  const models = c.models.filter((m) => m.reasoning).map((m) => m.id);
  if (!models.length) return [];
  const range = (e: keyof typeof REASONING_TOKENS) => `${REASONING_TOKENS[e].min} to ${REASONING_TOKENS[e].max}`;
  return [
    `reasoning: ${models.join(', ')} ${models.length === 1 ? 'thinks' : 'think'} ${range('medium')} tokens before ${models.length === 1 ? 'its' : 'each'} answer (reasoning_effort low: ${range('low')}, high: ${range('high')}), counted in max_tokens: a max_tokens near that leaves an answer or a tool call cut (finish_reason "length")`,
  ];
}

/** How generated replies are paced, for all models and per model; said with the flag that changes
 * it when the caller takes one (the CLI's --pace). */
function paceLine(c: MockConfig, flag = false): string {
  const own = c.models.filter((m) => m.timing).map((m) => `${m.id}: ${paceText({ ...c.timing, ...m.timing })}`);
  const instant = paceText(c.timing) === 'at once';
  const hint = !flag ? '' : instant ? `; --pace human types as a hosted model does (${paceText(PACES.human)})` : '; --pace instant answers at once';
  return `pace of generated replies: ${[paceText(c.timing), ...own].join(', ')}${hint}`;
}

/** Who may call: the origins and hosts allowed, and a warning wherever that is wider than this
 * machine's own pages (a `*`, an address the network reaches). */
export function boundaryLines(b: Boundary, host: string, upstreamKey = false): string[] {
  const named = b.origins.filter((o) => o.trim() !== '*');
  const any = named.length < b.origins.length;
  return [
    `origins allowed: loopback (http(s)://localhost, *.localhost, 127.0.0.0/8, [::1], any port)${named.length ? `, ${named.join(', ')}` : ''}${any ? ', and any page (*) on the API routes' : ''}; more with --allow-origin ORIGIN`,
    `hosts allowed: IP addresses, localhost, *.localhost${b.hosts.length ? `, ${b.hosts.join(', ')}` : ''}; more with --allowed-host NAME`,
    ...(any
      ? [
          `warning: origin * is allowed: any web page open in a browser here can call the mock${upstreamKey ? ', spend the upstream key' : ''} and read the answers (the /__mock/ routes stay with the origins named)`,
        ]
      : []),
    ...(isLoopbackAddress(host)
      ? []
      : [`warning: listening on ${host}, reachable from the network: anyone who can reach this machine can call the mock${upstreamKey ? ' and spend the upstream key' : ''}`]),
  ];
}
