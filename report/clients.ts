// The client section of a report (`conformance clients`, `run --clients`): which real SDKs ran, each
// flow's verdict per client with the checks it rests on, and the impact both ways (a failed flow names
// the failed checks that explain it; a failed check names the flows it broke). A flow that failed
// while every check it rests on held is the finding a report shows first: the kit lacks a rule.
// clients/ makes this section, report/ only reads it, as it reads engine/check.ts; what the reporters
// draw from it (the matrix, the gate) is in client-matrix.ts.
import type { Evidence, Level, Outcome } from '../engine/check.js';

/** A client library the kit drives, and whether it could be loaded here. */
export interface ClientInfo {
  /** Stable: `openai`, `ai-sdk`, `langchain`. */
  name: string;
  /** As a reader knows it: `openai (Node SDK)`. */
  title: string;
  /** The packages it needs, each with the version found where it is installed. */
  packages: { name: string; version?: string }[];
  installed: boolean;
  /** Not installed (or not loadable): what went wrong, in a line. */
  missing?: string;
}

/** One flow on one model (or once, for a flow that takes no model). */
export interface FlowPath {
  /** The model, or `all` for a flow run once. */
  label: string;
  outcome: Outcome;
  message?: string;
  notes?: string[];
  /** A failed path: the rules its own answers broke (clients/judge.ts), and what was seen. */
  broke?: string[];
  brokeWhy?: string[];
  /** A failed path: a requirement outside the document its answers did not meet (CORS, a client's
   * own check of tool arguments). */
  outside?: string;
  /** A failed path: what it never reached (a model that did not stop within the cap, a cut by the
   * kit's own limit). */
  precondition?: string;
  evidence: Evidence[];
  durationMs: number;
}

/** Why a failed flow failed, in the words an implementer acts on: a rule of the document its own
 * answers broke; a requirement outside the document; a precondition it never reached; or nothing
 * the kit knows: it lacks a rule. */
export interface FlowCause {
  kind: 'rule' | 'outside' | 'precondition' | 'unexplained';
  why?: string;
}

/** A flow as a client runs it: its verdict, the rules it rests on, and what explains a failure. */
export interface FlowResult {
  /** `<client>.<flow>`: `openai.stream`. Stable. */
  id: string;
  client: string;
  flow: string;
  title: string;
  /** What the user's code does in this client, one line: `chat.completions.stream(), finalChatCompletion()`. */
  does: string;
  /** The highest level among the checks it rests on: a must when one of them is. */
  level: Level;
  /** A failed flow: what its failure weighs, as the gate reads it: a must where a failed must
   * explains it, a should otherwise (what the clients expect beyond the document is a convention). */
  failureLevel?: Level;
  /** The check ids it rests on, as declared and held to the fault sweep (test/clients/sweep.test.ts). */
  restsOn: string[];
  outcome: Outcome;
  message?: string;
  /** What the flow saw that is worth saying (how long the client waited before its retry). */
  notes?: string[];
  /** A failed flow: the checks it rests on that failed in this run, and the owners that blocked the
   * ones left not tested. */
  brokenBy?: string[];
  /** A failed flow whose checks all held: no rule of the kit explains it. */
  unexplained?: boolean;
  /** A failed flow: what kind of cause explains it. */
  cause?: FlowCause;
  /** A failed flow none of whose checks failed, some not run (`run --clients --suite ...`): they may. */
  unjudged?: string[];
  /** A failed flow explained only by failures the baseline expects: it fails nothing (baseline.ts). */
  expected?: { reason: string };
  paths: FlowPath[];
  durationMs: number;
}

export interface ClientsReport {
  clients: ClientInfo[];
  /** The flows in matrix order, each with its title. */
  flows: { name: string; title: string }[];
  /** Per client, the flows it does not offer and why (the AI SDK lists no models). */
  absent: { client: string; flow: string; why: string }[];
  results: FlowResult[];
  /** The one command that adds every missing client, when one is missing. */
  install?: string;
  /** Every failed check that broke a flow, with the flows it broke. */
  impact: { check: string; flows: string[] }[];
  /** Requests the flows sent (a client's own retries included), counted in the run's too. */
  requestsSent: number;
  /** The max_tokens of the flows' chat requests, summed: their share of the run's cost. */
  maxTokens: number;
}
