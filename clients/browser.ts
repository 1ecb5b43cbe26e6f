// The official openai SDK in a real page (headless Chromium through playwright-core), against the
// target: the frontend developer's flows, with CORS as the page meets it (a preflight refused, no
// Access-Control-Allow-Origin) and streams as the browser delivers them. The same SDK code as the
// Node client reads the same answers, so each flow rests on the checks its Node twin rests on (held
// to the fault sweep there); what only a browser adds, CORS, no check of the document holds: a flow
// that fails here and not in Node is a failure no rule explains. Where no Chromium is installed the
// client is not installed, and says how to get one.
import { existsSync } from 'node:fs';
import { fail, failIfAny, notTested, pass, type Verdict } from '../engine/check.js';
import { CAPS, PROMPTS, withRoom } from './asks.js';
import { ABORT_GRACE_MS, WRONG_KEY } from './common.js';
import { expectations, isCount, shown, thrownName, type Client, type FlowContext, type FlowName } from './flow.js';
import { OPENAI } from './openai.js';
import { bundleOpenai, CHROMIUM, CHROMIUM_HOW, openaiFolder, PageHost, type Page } from './page.js';

/** `openai`: the installed SDK bundled into one module. */
type Sdk = { playwright: typeof import('playwright-core'); openai: string; hosts: Map<string, PageHost> };

/** What the page's SDK call gave: the answer's parts a flow judges, or what it threw. */
interface InPage {
  threw?: string;
  content?: unknown;
  finish?: unknown;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown; reasoning?: unknown };
  deltas?: string;
  aborted?: boolean;
  hung?: boolean;
}

interface Ask {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  prompt: string;
  maxTokens: number;
  kind: 'create' | 'stream' | 'abort';
  graceMs: number;
}

/** Runs in the page (serialized by playwright: it may use nothing of this module): the SDK as a
 * frontend calls it, `dangerouslyAllowBrowser` as its docs say for a key the page holds. */
/* c8 ignore start */
const inPage = async (a: Ask): Promise<InPage> => {
  const OpenAI = (globalThis as any).OpenAI;
  const client = new OpenAI({ apiKey: a.apiKey, baseURL: a.baseURL, dangerouslyAllowBrowser: true, maxRetries: 0, timeout: a.timeoutMs });
  const body = { model: a.model, messages: [{ role: 'user', content: a.prompt }], max_tokens: a.maxTokens };
  const named = (e: unknown) => `${(e as Error)?.constructor?.name ?? 'Error'}: ${(e as Error)?.message ?? String(e)}`;
  const usageOf = (u: Record<string, unknown> | null | undefined) =>
    u
      ? {
          prompt_tokens: u.prompt_tokens,
          completion_tokens: u.completion_tokens,
          total_tokens: u.total_tokens,
          reasoning: (u.completion_tokens_details as Record<string, unknown> | undefined)?.reasoning_tokens,
        }
      : undefined;
  try {
    if (a.kind === 'create') {
      const r = await client.chat.completions.create(body);
      return { content: r.choices?.[0]?.message?.content, finish: r.choices?.[0]?.finish_reason, usage: usageOf(r.usage) };
    }
    const s = client.chat.completions.stream({ ...body, ...(a.kind === 'stream' ? { stream_options: { include_usage: true } } : {}) });
    let deltas = '';
    let aborted = false;
    // Until the abort, the request's timeout and the grace (a first content may come late); from it, the grace.
    let graceFrom: () => void = () => {};
    const hang = new Promise<string>((r) => {
      let timer = setTimeout(() => r('hang'), a.timeoutMs + a.graceMs);
      graceFrom = () => {
        clearTimeout(timer);
        timer = setTimeout(() => r('hang'), a.graceMs);
      };
    });
    s.on('content', (d: string) => {
      deltas += d;
      if (a.kind === 'abort' && !aborted) {
        aborted = true;
        graceFrom();
        s.abort();
      }
    });
    if (a.kind === 'stream') {
      const r = await s.finalChatCompletion();
      return { content: r.choices?.[0]?.message?.content, finish: r.choices?.[0]?.finish_reason, usage: usageOf(r.usage), deltas };
    }
    const ended = await Promise.race([
      s.finalChatCompletion().then(
        () => 'resolved',
        (e: unknown) => named(e),
      ),
      hang,
    ]);
    return { aborted, hung: ended === 'hang', threw: ended === 'hang' || ended === 'resolved' ? undefined : ended, deltas };
  } catch (e) {
    return { threw: named(e) };
  }
};
/* c8 ignore stop */

/** The page's exchanges with the API, as evidence, and what its console said (a CORS refusal is said there only). */
function watch(page: Page, ctx: FlowContext): { console: string[] } {
  const said: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') said.push(m.text());
  });
  const api = ctx.baseURL;
  const request = (r: import('playwright-core').Request) => ({ method: r.method() as 'GET' | 'POST', url: r.url(), headers: r.headers(), ...(r.postData() ? { body: r.postData()! } : {}) });
  page.on('requestfinished', async (r) => {
    if (!r.url().startsWith(api)) return;
    const res = await r.response().catch(() => null);
    ctx.record({ request: request(r), origin: new URL(page.url()).origin, ...(res ? { status: res.status(), headers: res.headers() } : {}) });
  });
  page.on('requestfailed', (r) => {
    if (r.url().startsWith(api)) ctx.record({ request: request(r), origin: new URL(page.url()).origin, error: `the browser failed the request: ${r.failure()?.errorText ?? 'no reason given'}` });
  });
  return { console: said };
}

/** A flow run in a fresh page of the kit's origin. */
async function inAPage(sdk: Sdk, ctx: FlowContext, judge: (ask: (a: Partial<Ask> & Pick<Ask, 'kind' | 'prompt' | 'maxTokens'>) => Promise<InPage>) => Promise<Verdict>): Promise<Verdict> {
  const host = ctx.pageHost ?? '127.0.0.1';
  if (!sdk.hosts.has(host)) sdk.hosts.set(host, new PageHost(sdk.playwright, sdk.openai, host));
  let page: Page;
  try {
    page = await sdk.hosts.get(host)!.page(ctx.timeoutMs);
  } catch (e) {
    // Before the page asked the server anything: the kit's own browser, never the server's failure.
    return notTested(`the kit's page did not open in Chromium (${thrownName(e)}): the flow was not run`);
  }
  const seen = watch(page, ctx);
  try {
    const verdict = await judge((a) => page.evaluate(inPage, { baseURL: ctx.baseURL, apiKey: ctx.apiKey, model: ctx.model, timeoutMs: ctx.timeoutMs, graceMs: ABORT_GRACE_MS, ...a }));
    // What the browser said of a refusal (CORS, a preflight) is the failure's reason: the SDK sees only "Connection error".
    const cors = seen.console.filter((t) => /CORS|Access-Control|preflight|origin/i.test(t));
    return verdict.outcome === 'fail' && cors.length ? fail(`${verdict.message}; the page's console: ${cors.slice(0, 2).join(' | ')}`) : verdict;
  } finally {
    await page.close().catch(() => {});
  }
}

const cutOf = (r: InPage) => ({ cut: r.finish === 'length', reasoning: isCount(r.usage?.reasoning) ? r.usage.reasoning : undefined });

/** A finished answer as the page's SDK gave it: text, finish_reason "stop", usage. */
function answered(r: InPage, what: string): Verdict {
  if (r.threw) return fail(`${what}: the page's SDK threw ${r.threw}`);
  const { want, wrong } = expectations();
  want(typeof r.content === 'string' && r.content.length > 0, `${what}: message.content is ${shown(r.content)}, not text`);
  want(r.finish === 'stop', `${what}: finish_reason is ${shown(r.finish)}, not "stop"`);
  const u = r.usage;
  want(!!u && isCount(u.prompt_tokens) && isCount(u.completion_tokens) && u.total_tokens === u.prompt_tokens + u.completion_tokens, `${what}: usage is ${shown(u)}`);
  return failIfAny(wrong);
}

/** The checks the Node client's flow of that name rests on: the same SDK code reads the same answers. */
const restsOf = (name: FlowName) => OPENAI.flows.find((f) => f.name === name)!.rests;
const NODE_ONLY = 'run by the openai client in Node: the same SDK code, meeting the same answers; the page adds CORS, which these four flows meet';

export const BROWSER: Client<Sdk> = {
  name: 'openai-browser',
  title: 'openai (in Chromium)',
  packages: ['openai', 'playwright-core', 'esbuild'],
  load: async () => {
    const playwright = await import('playwright-core');
    const lacks = BROWSER.lacks?.();
    if (lacks) throw new Error(lacks);
    return { playwright, openai: await bundleOpenai(openaiFolder()), hosts: new Map() };
  },
  lacks: () => (existsSync(CHROMIUM) ? undefined : CHROMIUM_HOW),
  close: async (sdk) => {
    await Promise.all([...sdk.hosts.values()].map((h) => h.close()));
    sdk.hosts.clear();
  },
  absent: { models: NODE_ONLY, tools: NODE_ONLY, structured: NODE_ONLY, stop: NODE_ONLY, 'max-tokens': NODE_ONLY, 'bad-request': NODE_ONLY, retry: NODE_ONLY },
  flows: [
    {
      name: 'completion',
      does: 'in the page, new OpenAI({ dangerouslyAllowBrowser: true }) and chat.completions.create(): content, finish_reason, usage',
      rests: restsOf('completion'),
      run: (sdk, ctx) => inAPage(sdk, ctx, async (ask) => answered(await withRoom(CAPS.completion, (maxTokens) => ask({ kind: 'create', prompt: PROMPTS.count, maxTokens }), cutOf), 'the answer')),
    },
    {
      name: 'stream',
      does: "in the page, chat.completions.stream() with include_usage, its 'content' events, finalChatCompletion()",
      rests: restsOf('stream'),
      run: (sdk, ctx) =>
        inAPage(sdk, ctx, async (ask) => {
          const r = await withRoom(CAPS.stream, (maxTokens) => ask({ kind: 'stream', prompt: PROMPTS.count, maxTokens }), cutOf);
          const verdict = answered(r, 'the joined stream');
          if (verdict.outcome === 'pass' && r.deltas !== r.content) return fail(`the 'content' events joined (${shown(r.deltas)}) are not the final message's content (${shown(r.content)})`);
          return verdict;
        }),
    },
    {
      name: 'auth-error',
      does: 'in the page, a client made with a wrong key: chat.completions.create() throws AuthenticationError',
      rests: restsOf('auth-error'),
      run: (sdk, ctx) =>
        inAPage({ ...sdk }, { ...ctx, apiKey: WRONG_KEY }, async (ask) => {
          const r = await ask({ kind: 'create', prompt: PROMPTS.ok, maxTokens: CAPS.small });
          if (!r.threw) return fail('a wrong key was served: nothing was thrown');
          return r.threw.startsWith('AuthenticationError') ? pass() : fail(`threw ${r.threw}, not AuthenticationError`);
        }),
    },
    {
      name: 'abort',
      does: "in the page, chat.completions.stream(), stream.abort() at the first 'content' event: finalChatCompletion() rejects with APIUserAbortError",
      rests: restsOf('abort'),
      run: (sdk, ctx) =>
        inAPage(sdk, ctx, async (ask) => {
          const r = await ask({ kind: 'abort', prompt: PROMPTS.essay, maxTokens: CAPS.abort });
          if (!r.aborted) return fail(`no content came to abort the stream at${r.threw ? `: ${r.threw}` : ''}`);
          if (r.hung) return fail(`the stream did not end within ${ABORT_GRACE_MS} ms of stream.abort()`);
          return r.threw?.startsWith('APIUserAbortError') ? pass() : fail(`finalChatCompletion() ${r.threw ? `threw ${r.threw}` : 'resolved'} after stream.abort(), not APIUserAbortError`);
        }),
    },
  ],
};
