// The client flows beside a run's checks (`conformance clients`, `run --clients`): the clients asked
// for are loaded (the missing ones named), the models under test found as the checks find them, the
// flows run against the same target, and once the checks' results are known, each failed flow is
// explained by them (impact.ts). suites/session.ts runs this beside its checks without importing it.
import type { CheckResult } from '../engine/check.js';
import type { Limits, RequestSpec } from '../engine/http.js';
import { withContext } from '../engine/runner.js';
import type { Target } from '../engine/target.js';
import { OWNERS } from '../suites/answer.js';
import { modelsUnderTest } from '../suites/paths.js';
import type { Beside } from '../suites/session.js';
import { costOf } from '../suites/cost.js';
import type { ClientsReport, FlowResult } from '../report/clients.js';
import { CLIENTS } from './index.js';
import { FLOWS } from './flow.js';
import { withImpact } from './impact.js';
import { flowId, levelOf } from './levels.js';
import { loadClients } from './load.js';
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
      const { loaded, info, install } = await loadClients(chosen(choice));
      const absent = chosen(choice).flatMap((c) => Object.entries(c.absent).map(([flow, why]) => ({ client: c.name, flow, why: why! })));
      const flows = FLOWS.filter((f) => !choice.flows?.length || choice.flows.includes(f.name)).map(({ name, title }) => ({ name, title }));
      const found = await withContext({ target, limits, retry: { maxRetries: 2, maxWaitMs: 20_000 }, signal }, (ctx) => modelsUnderTest(ctx));
      const models = found.value.models.map((m) => m.id);
      let results: FlowResult[] = [];
      const requests: RequestSpec[] = [];
      const logged: string[] = [];
      if (loaded.length && models.length) {
        // Each client in a process of its own (isolated.ts), side by side, ended with the run.
        const runs = await Promise.all(
          loaded.map(({ client }) =>
            runInProcess(
              {
                client: client.name,
                flows: choice.flows,
                baseUrl: target.baseUrl,
                apiKey: target.apiKey,
                models,
                headers: target.headers,
                limits,
                tls: target.tls,
                concurrency: choice.concurrency ?? 4,
                ...(choice.pageHost ? { pageHost: choice.pageHost } : {}),
              },
              signal,
            ),
          ),
        );
        runs.forEach((run, i) => {
          if ('failed' in run) results.push(...unrun([loaded[i].client], choice, run.failed));
          else {
            results.push(...run.results);
            requests.push(...run.requests);
            logged.push(...run.logged);
          }
        });
      } else if (loaded.length)
        results = unrun(
          loaded.map((l) => l.client),
          choice,
          `no model to run the flows on: ${found.value.problem ?? 'none is listed'}`,
        );
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

/** Every chosen flow of these clients, not tested for `why`. */
function unrun(clients: readonly (typeof CLIENTS)[number][], choice: ClientChoice, why: string): FlowResult[] {
  return clients.flatMap((c) =>
    c.flows
      .filter((f) => !choice.flows?.length || choice.flows.includes(f.name))
      .map((f) => ({
        id: flowId(c.name, f.name),
        client: c.name,
        flow: f.name,
        title: FLOWS.find((x) => x.name === f.name)!.title,
        does: f.does,
        level: levelOf(f.rests),
        restsOn: [...f.rests],
        outcome: 'not-tested' as const,
        message: why,
        paths: [],
        durationMs: 0,
      })),
  );
}
