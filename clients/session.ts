// The client flows beside a run's checks (`conformance clients`, `run --clients`): the models under
// test found as the checks find them, the clients asked for loaded (the missing ones named) and their
// flows run against the same target in a process of their own (isolated.ts), and once the checks' results are known, each failed flow is
// explained by them (impact.ts). suites/session.ts runs this beside its checks without importing it.
import type { CheckResult } from '../engine/check.js';
import type { Limits } from '../engine/http.js';
import { withContext } from '../engine/runner.js';
import type { Target } from '../engine/target.js';
import { OWNERS } from '../suites/answer.js';
import { modelsUnderTest } from '../suites/paths.js';
import { catalog } from '../suites/api.js';
import type { Beside } from '../suites/session.js';
import { costOf } from '../suites/cost.js';
import type { ClientsReport } from '../report/clients.js';
import { CLIENTS } from './index.js';
import { FLOWS } from './flow.js';
import { withImpact } from './impact.js';
import { flowId } from './levels.js';
import { describeClients, installCommand } from './load.js';
import { unrunFlows } from './run.js';
import { runInProcess } from './isolated.js';

export interface ClientChoice {
  /** Only these clients (by name), all by default. */
  clients?: readonly string[];
  /** Only these flows (by name), all by default. */
  flows?: readonly string[];
  concurrency?: number;
  /** The host name the browser client's page is served as (its origin, for CORS). */
  pageHost?: string;
}

/** A name of --client or --flow that is none: said before the first request. */
export function unknownChoice(choice: ClientChoice): string | undefined {
  const clients = CLIENTS.map((c) => c.name);
  const flows = FLOWS.map((f) => f.name as string);
  const badClient = choice.clients?.find((c) => !clients.includes(c));
  if (badClient) return `no client named "${badClient}" (choose from ${clients.join(', ')})`;
  const badFlow = choice.flows?.find((f) => !flows.includes(f));
  if (badFlow) return `no flow named "${badFlow}" (choose from ${flows.join(', ')})`;
  return undefined;
}

/** The clients named with --client that cannot run here (a package Node does not find, no Chromium),
 * in one line with how to add them: said before the first request, as a usage error. The clients a
 * run takes by default are not held to it: the missing ones are named in its report. */
export function notInstalledChoice(choice: ClientChoice): string | undefined {
  if (!choice.clients?.length) return undefined;
  const missing = describeClients(chosen(choice)).filter((c) => !c.installed);
  if (!missing.length) return undefined;
  const install = installCommand(missing);
  return `not installed: ${missing.map((c) => `--client ${c.name}: ${c.missing}`).join('; ')}${install ? `; to add ${missing.length === 1 ? 'it' : 'them'}: ${install}` : ''}`;
}

/** Every flow's id (`openai.stream`): what a baseline may list beside the checks. */
export const FLOW_IDS: readonly string[] = CLIENTS.flatMap((c) => c.flows.map((f) => flowId(c.name, f.name)));

const chosen = (choice: ClientChoice) => CLIENTS.filter((c) => !choice.clients?.length || choice.clients.includes(c.name));

/** The checks `conformance clients` runs: those the chosen flows rest on, and every owner of a part of
 * an answer, so that a check left not tested names a check of the run that failed. */
export function checksForFlows(choice: ClientChoice): string[] {
  const rests = chosen(choice).flatMap((c) => c.flows.filter((f) => !choice.flows?.length || choice.flows.includes(f.name)).flatMap((f) => f.rests));
  const owners = Object.values(OWNERS).flatMap((o) => Object.values(o));
  return [...new Set([...rests, ...owners])];
}

/** The flows as work beside a run's checks. */
export function clientsBeside(choice: ClientChoice): Beside {
  return {
    async start({ target, limits, signal }: { target: Target; limits: Limits; signal: AbortSignal }) {
      const absent = chosen(choice).flatMap((c) => Object.entries(c.absent).map(([flow, why]) => ({ client: c.name, flow, why: why! })));
      const flows = FLOWS.filter((f) => !choice.flows?.length || choice.flows.includes(f.name)).map(({ name, title }) => ({ name, title }));
      const found = await withContext({ target, limits, retry: { maxRetries: 2, maxWaitMs: 20_000 }, signal }, async (ctx) => {
        const under = await modelsUnderTest(ctx);
        const { entries } = await catalog(ctx);
        return { ...under, entries: Object.fromEntries(under.models.flatMap((m) => (entries.has(m.id) ? [[m.id, entries.get(m.id)!]] : []))) };
      });
      const models = found.value.models.map((m) => m.id);
      // The libraries load and run in a process of their own (isolated.ts), ended with the run.
      const run = await runInProcess(
        {
          clients: chosen(choice).map((c) => c.name),
          flows: choice.flows,
          baseUrl: target.baseUrl,
          apiKey: target.apiKey,
          models,
          headers: target.headers,
          limits,
          tls: target.tls,
          concurrency: choice.concurrency ?? 4,
          ...(choice.pageHost ? { pageHost: choice.pageHost } : {}),
          ...(models.length ? { entries: found.value.entries } : { noModel: `no model to run the flows on: ${found.value.problem ?? 'none is listed'}` }),
        },
        signal,
      );
      // A process that ended before it said leaves what Node finds of the libraries, and every flow unjudged.
      const described = 'failed' in run ? describeClients(chosen(choice)) : run.info;
      const { info, install } = 'failed' in run ? { info: described, install: undefined } : run;
      const results =
        'failed' in run
          ? unrunFlows(
              chosen(choice).filter((c) => described.find((d) => d.name === c.name)?.installed),
              choice.flows,
              run.failed,
            )
          : run.results;
      const requests = 'failed' in run ? [] : run.requests;
      const logged = 'failed' in run ? [] : run.logged;
      const missing = info.filter((c) => !c.installed);
      return {
        requestsSent: found.requestsSent + requests.length,
        requests,
        notes: [
          `client flows: ${requests.length} requests, asking for at most ${costOf(requests).maxTokens} tokens (counted in the run's figures below)`,
          ...(logged.length ? [`the clients wrote to the console during their flows: ${logged.join(' | ')}`] : []),
          `client flows: ${
            info
              .filter((c) => c.installed)
              .map((c) => `${c.name} ${c.packages[0].version ?? ''}`.trim())
              .join(', ') || 'no client installed'
          }${missing.length ? `; not installed: ${missing.map((c) => (c.missing ? `${c.name} (${c.missing})` : c.name)).join(', ')}${install ? `; ${install}` : ''}` : ''}`,
        ],
        report: (checks: readonly CheckResult[]): { clients: ClientsReport } => ({
          clients: { clients: info, flows, absent, ...withImpact(results, checks), ...(install ? { install } : {}), requestsSent: requests.length, maxTokens: costOf(requests).maxTokens },
        }),
      };
    },
  };
}
