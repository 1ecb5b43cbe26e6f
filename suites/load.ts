// The rules only load can show: `conformance load` holds them on what a sweep of concurrent
// requests received (suites/load/), each per step. Under `conformance run` there is no sweep: they
// skip, saying so, and send nothing (a run stays small).
import { skip } from '../engine/check.js';
import { inSuite, type ApiCheck, type CheckDef } from './api.js';

const UNDER_LOAD = 'judged under load only: `conformance load` sends concurrent requests and holds this rule on each step';

/** What a load check's run says in `conformance run`. */
const onlyUnderLoad: Pick<CheckDef, 'run'> = { run: async () => skip(UNDER_LOAD) };

export const idsUnique: CheckDef = {
  id: 'load.ids-unique',
  title: 'Concurrent answers carry distinct ids',
  section: '2.3',
  level: 'should',
  convention: '2.3 calls id the identifier of the completion; that no two completions share one is the convention (clients key logs, caches and traces on it).',
  audit:
    "Reads the id of every answer of each step (every chunk's, on a stream) and holds it to the ids of the answers around it: a server whose batcher or gateway stamps one id on answers served together gives two answers the same id; shown by fault load-ids-reused.",
  ...onlyUnderLoad,
};

export const usageIndependent: CheckDef = {
  id: 'load.usage-independent',
  title: "A request's usage.prompt_tokens under load is what it was when sent alone",
  section: '2.3, 6.2',
  level: 'must',
  audit:
    "Sends each request of the mix alone first and notes its prompt_tokens, then holds every answer of each step to it: a server whose batching mixes up the usage of concurrent requests gives one request another's count; shown by fault load-usage-swapped.",
  ...onlyUnderLoad,
};

export const seedReproducible: CheckDef = {
  id: 'load.seed-reproducible',
  title: 'A seeded request that reproduces alone answers the same under load (reported as a rate)',
  section: '2.1',
  level: 'should',
  convention:
    '2.1 gives seed as best-effort determinism; a server that reproduces a seeded request alone but not beside others (batch-dependent kernels) is allowed, and the rate says how far it holds.',
  audit:
    'Sends the reproducible request (seed 7, temperature 0) twice alone and, where both answers are the same, holds each of its answers under load to them: a server whose answer depends on what it is batched with answers otherwise at the steps where others are in flight; shown by fault load-seed-varies.',
  ...onlyUnderLoad,
};

export const overloadRefused: CheckDef = {
  id: 'load.overload-refused',
  title: 'Under load a request is answered or refused (429, 503), never failed: no 5xx, no dropped connection, no stream ended by an error event',
  section: '7, 8',
  level: 'should',
  convention:
    'Rate limits and error statuses are not shown (7, 8); the convention is that a server at capacity refuses with 429 or 503, which a client waits out, rather than answering 500, closing the connection, or opening a stream it then ends with an error.',
  audit:
    "Counts, per step, the requests answered with a 5xx (503 aside), another error status to a request that was served alone, a connection closed with no answer, or a stream ended by an error event (a stream cut mid-way after its 2xx is stream.complete's, judged on each answer): a server that fails past its capacity instead of refusing does it at the steps beyond it; shown by faults load-limit-500, load-limit-reset and load-error-event.",
  ...onlyUnderLoad,
};

export const retryAfter: CheckDef = {
  id: 'load.retry-after',
  title: 'A refusal under load (429, 503) carries Retry-After',
  section: '8',
  level: 'should',
  convention: 'Rate limits are not shown (8); the convention is a 429 or 503 with Retry-After (or retry-after-ms), which the kit waits out before it sends the request again.',
  audit:
    'Reads every 429 and 503 of each step, waits what its Retry-After asks and sends the request again (a refusal is counted, never failed; the same refusal with Retry-After, fault load-limit-429, fails nothing): a refusal without Retry-After leaves a client to guess; shown by fault load-limit-429-bare.',
  ...onlyUnderLoad,
};

export const noStarvation: CheckDef = {
  id: 'load.no-starvation',
  title: 'No request starves: each gets its first byte, and its answer, within --timeout',
  section: '4.1',
  level: 'should',
  convention: 'The document sets no time (4.1); the convention is that a queue serves every request in time, not some at once and one never. The report names the slowest request of each step.',
  audit:
    'Times every request of each step from its sending to its first byte and its end, within --timeout: a scheduler that lets a request wait in its queue while later ones are served times it out at the steps where the queue is full, and a body that falls silent past the idle limit (--idle-timeout, 30 s by default) is a stall, counted here and said to be one; shown by fault load-starve.',
  ...onlyUnderLoad,
};

export const LOAD: ApiCheck[] = inSuite('load', [idsUnique, usageIndependent, seedReproducible, overloadRefused, retryAfter, noStarvation]);
