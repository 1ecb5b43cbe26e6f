// The mock's dashboard page: requests as they arrive (server-sent events from /__mock/events), one
// request's detail (/__mock/requests/SEQ), and the live control (/__mock/control), which the page
// uses as any client would. Everything a client sent is put in the page as text (textContent, never
// markup): a body holding <img onerror=...> shows as those characters and runs nothing.

interface Row {
  seq: number;
  at: number;
  method: string;
  path: string;
  key: string | null;
  model: string | null;
  scenario: string | null;
  faults: string[];
  content: string | null;
  control: { id: number; fault?: string; content?: string; pace?: Pace }[] | null;
  status: number;
  stream: boolean;
  ttfb_ms: number | null;
  total_ms: number | null;
  cut: boolean | null;
  error: { message: string; param: string | null; code: string | null } | null;
  asked: string | null;
  answered: string | null;
}

interface Pace {
  ttft_ms?: number;
  tokens_per_second?: number;
  jitter?: number;
}

interface Setting {
  id: number;
  fault?: string;
  content?: string;
  pace?: Pace;
  times?: number;
  key?: string;
  model?: string;
  left: { fault?: number | null; content?: number | null; pace?: number | null };
}

type FaultKind = 'frontend' | 'deviation' | 'legal' | 'hostile';

interface FaultOption {
  name: string;
  description: string;
  kind: FaultKind;
  fails: string[];
  params: { name: string; default: number; describe: string }[];
}

interface Options {
  faults: FaultOption[];
  profiles: string[];
  splits: string[];
  keys: string[];
  models: string[];
}

interface Detail {
  entry: {
    seq: number;
    time: string;
    method: string;
    path: string;
    body: unknown;
    body_cut: null | { bytes: number; kept: 'strings' | 'start' };
    key_id: string | null;
    model: string | null;
    scenario: string | null;
    faults: string[];
    content: string | null;
    status: number;
    stream: boolean;
    timing: unknown;
    control: Row['control'];
  };
  answer: null | { status: number; content_type: string | null; body?: string; chunks?: { at_ms: number; text: string; reset?: true }[]; ttfb_ms: number | null; total_ms: number | null };
  refusal: null | { message: string; field: string | null; section: string | null; code: string | null };
  curl: string;
}

const ROWS_KEPT = 1000;
const ROWS_SHOWN = 300;

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

const rows = new Map<number, Row>();
let options: Options | undefined;
let instance: string | undefined;
let selected: number | undefined;
let shownDone = false;
let renderQueued = false;
/** Requests the mock did not follow: past 2,000 a second it samples (a load test, a fuzz run). */
let skipped = 0;

// ------------------------------------------------------------------ the event stream

function setConnection(state: 'connecting' | 'live' | 'reconnecting'): void {
  const c = byId('connection');
  c.dataset.state = state;
  c.textContent = state === 'live' ? 'live' : state === 'connecting' ? 'connecting…' : 'mock unreachable: reconnecting…';
}

function connect(): void {
  const source = new EventSource('/__mock/events');
  source.addEventListener('hello', (e) => {
    const hello = JSON.parse((e as MessageEvent<string>).data) as { instance: string };
    // A new mock (restarted): a new journal; the rows of the old one go.
    if (hello.instance !== instance) {
      rows.clear();
      skipped = 0;
      if (instance !== undefined) hideDetail();
    }
    instance = hello.instance;
    setConnection('live');
    if (!options) void loadOptions();
  });
  source.addEventListener('rows', (e) => {
    for (const row of JSON.parse((e as MessageEvent<string>).data) as Row[]) {
      rows.delete(row.seq);
      rows.set(row.seq, row);
      if (row.seq === selected && row.total_ms !== null && !shownDone) void showDetail(row.seq);
    }
    while (rows.size > ROWS_KEPT) rows.delete(rows.keys().next().value!);
    queueRender();
  });
  source.addEventListener('skipped', (e) => {
    skipped += Number((e as MessageEvent<string>).data);
    queueRender();
  });
  // The journal is bounded (entries and bytes): what it let go is counted, and said.
  source.addEventListener('journal', (e) => {
    const { dropped } = JSON.parse((e as MessageEvent<string>).data) as { dropped: number };
    const note = byId('dropped');
    note.dataset.dropped = String(dropped);
    note.textContent = `${dropped.toLocaleString('en-US')} older ${dropped === 1 ? 'request' : 'requests'} no longer in the journal (it keeps the latest, bounded in count and bytes)`;
    note.hidden = dropped === 0;
  });
  source.addEventListener('control', (e) => renderControl((JSON.parse((e as MessageEvent<string>).data) as { settings: Setting[] }).settings));
  source.onopen = () => setConnection('live');
  source.onerror = () => {
    setConnection('reconnecting');
    // A network error is retried by EventSource itself; an answer it cannot take (a mock started
    // with --no-dashboard, a 403) closes it for good: try again a little later.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
  };
}

// ------------------------------------------------------------------ the requests

function queueRender(): void {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    renderRows();
  });
}

const ms = (n: number | null) => (n === null ? '…' : `${n} ms`);
const clock = (at: number) => {
  const d = new Date(at);
  return `${d.toLocaleTimeString('en-GB', { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
};

function searchable(r: Row): string {
  return [
    r.seq,
    r.method,
    r.path,
    r.key,
    r.model,
    r.asked,
    r.answered,
    r.scenario,
    ...r.faults,
    r.content,
    r.status,
    r.error?.message,
    ...(r.control ?? []).map((c) => `${c.fault ?? ''} ${c.content ?? ''}`),
  ]
    .join(' ')
    .toLowerCase();
}

function visible(): Row[] {
  const text = byId<HTMLInputElement>('filter-text').value.trim().toLowerCase();
  const path = byId<HTMLSelectElement>('filter-path').value;
  const status = byId<HTMLSelectElement>('filter-status').value;
  const out: Row[] = [];
  for (const r of [...rows.values()].reverse()) {
    if (path && r.path.split('?')[0] !== path) continue;
    if (status && (status === '0' ? r.status !== 0 && r.total_ms !== null : String(r.status)[0] !== status)) continue;
    if (text && !searchable(r).includes(text)) continue;
    out.push(r);
    if (out.length >= ROWS_SHOWN) break;
  }
  return out;
}

/** The table's columns, in order: the header's label; what each shows of a row, and a mark after it;
 * whether its text wraps (what was asked and answered, the faults: free text, given the width the
 * others leave, never less than a readable one) or stays on one line, the column as wide as its
 * longest value (times, ids, statuses: never cut); and whether it hides when no row shown has
 * anything in it. */
const COLUMNS: {
  col: string;
  label: string;
  wrap?: 'preview' | 'words';
  text: (r: Row) => string;
  mark?: (r: Row) => string | undefined;
  cls?: (r: Row) => string;
  optional?: true;
}[] = [
  { col: 'time', label: 'time', text: (r) => clock(r.at) },
  { col: 'path', label: 'request', text: (r) => `${r.method} ${r.path}`, mark: (r) => (r.stream ? 'stream' : undefined) },
  // A stream cut before its end is no success, whatever its status line said.
  {
    col: 'status',
    label: 'status',
    text: (r) => `${r.status ? String(r.status) : 'no HTTP'}${r.cut && r.status ? ' cut' : ''}`,
    cls: (r) => (r.cut && r.status ? 'status-cut' : `status-${String(r.status)[0]}`),
  },
  // Its times beside the outcome: seen without scrolling in a narrow window.
  { col: 'ttfb', label: 'first byte', text: (r) => ms(r.ttfb_ms), cls: () => 'num' },
  { col: 'total', label: 'total', text: (r) => ms(r.total_ms), cls: () => 'num' },
  { col: 'key', label: 'key', text: (r) => r.key ?? '', optional: true },
  { col: 'model', label: 'model', text: (r) => r.model ?? '', optional: true },
  { col: 'asked', label: 'asked', wrap: 'preview', text: (r) => r.asked ?? '', optional: true },
  { col: 'answered', label: 'answer', wrap: 'preview', text: (r) => r.answered ?? '', optional: true },
  { col: 'scenario', label: 'scenario', text: (r) => r.scenario ?? '', optional: true },
  {
    col: 'faults',
    label: 'faults',
    wrap: 'words',
    text: (r) => [r.faults.join(', '), r.control?.length ? `live #${r.control.map((c) => c.id).join(', #')}` : ''].filter(Boolean).join(' · '),
    optional: true,
  },
  { col: 'content', label: 'content', text: (r) => r.content ?? '', optional: true },
];

/** The header row, from the columns: a column's kind as a class, which the style sizes it by. */
function renderHeader(): void {
  byId('head-row').replaceChildren(
    ...COLUMNS.map((c) => {
      const th = el('th', c.label, c.wrap ? `wrap-${c.wrap}` : 'fit');
      th.dataset.col = c.col;
      return th;
    }),
  );
}

function renderRows(): void {
  const shown = visible();
  const body = byId('rows');
  const used = new Set(COLUMNS.filter((c) => !c.optional || shown.some((r) => c.text(r) !== '')).map((c) => c.col));
  body.replaceChildren(
    ...shown.map((r) => {
      const tr = el('tr');
      // What a test (or a person's devtools) selects a row by: never its free text.
      Object.assign(tr.dataset, {
        seq: String(r.seq),
        status: String(r.status),
        path: r.path.split('?')[0],
        method: r.method,
        stream: String(r.stream),
        done: String(r.total_ms !== null),
        cut: String(r.cut === true),
      });
      tr.setAttribute('aria-selected', String(r.seq === selected));
      for (const c of COLUMNS) {
        const text = c.text(r);
        const td = el('td', undefined, [c.wrap ? `wrap-${c.wrap}` : '', c.cls?.(r) ?? ''].join(' ').trim());
        const mark = c.mark?.(r);
        td.append(el('span', text, 'cell'));
        if (mark) {
          const badge = el('span', mark, 'mark');
          badge.dataset.mark = mark;
          td.append(badge);
        }
        td.dataset.col = c.col;
        td.title = mark ? `${text} (${mark})` : text;
        td.hidden = !used.has(c.col);
        tr.append(td);
      }
      return tr;
    }),
  );
  for (const th of byId('head-row').children) {
    const c = COLUMNS.find((x) => x.col === (th as HTMLElement).dataset.col)!;
    (th as HTMLElement).hidden = !used.has(c.col);
  }
  byId('empty').hidden = rows.size > 0;
  byId('count').textContent = `${shown.length} shown of ${rows.size}${skipped ? ` (and ${skipped.toLocaleString('en-US')} more, not followed: past 2,000 a second the mock samples)` : ''}`;
}

/** Columns past the list's box are reached by scrolling it sideways (the time column stays at the
 * left): where more of the table lies, a shade says so (the frame's right edge; the time column's
 * edge once scrolled), which a person sees even where scrollbars show only while scrolling. The
 * shade keeps clear of the box's vertical scrollbar and spans the rows, not the empty box below. */
function markEdges(): void {
  const box = byId('table-box');
  const frame = byId('table-frame');
  frame.dataset.moreLeft = String(box.scrollLeft > 0);
  frame.dataset.moreRight = String(box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
  frame.style.setProperty('--bar-right', `${box.offsetWidth - box.clientWidth - box.clientLeft}px`);
  frame.style.setProperty('--shade-height', `${Math.min(box.clientHeight, box.querySelector('table')!.offsetHeight)}px`);
}

// ------------------------------------------------------------------ one request

function hideDetail(): void {
  selected = undefined;
  byId('detail').hidden = true;
}

const pretty = (text: string) => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

async function showDetail(seq: number): Promise<void> {
  selected = seq;
  for (const tr of byId('rows').children) tr.setAttribute('aria-selected', String((tr as HTMLElement).dataset.seq === String(seq)));
  const res = await fetch(`/__mock/requests/${seq}`);
  if (selected !== seq) return;
  if (!res.ok) {
    byId('detail').hidden = false;
    byId('detail-title').textContent = `#${seq}: no longer in the journal`;
    return;
  }
  const d = (await res.json()) as Detail;
  const e = d.entry;
  shownDone = d.answer?.total_ms !== null && d.answer?.total_ms !== undefined;
  byId('detail').hidden = false;
  const ended = e.status && rows.get(seq)?.cut ? ', cut before its end' : '';
  byId('detail-title').textContent = `#${e.seq} ${e.method} ${e.path} → ${e.status || 'no HTTP answer'}${e.stream ? ', streamed' : ''}${ended}`;
  const touched = (e.control ?? []).map((c) => `#${c.id} ${[c.fault, c.content, c.pace && paceText(c.pace)].filter(Boolean).join(', ')}`);
  byId('detail-meta').textContent = [
    e.time,
    `key ${e.key_id ?? rows.get(seq)?.key ?? 'none'}`,
    e.model && `model ${e.model}`,
    e.scenario && `scenario ${e.scenario}`,
    e.faults.length ? `faults ${e.faults.join(', ')}` : '',
    e.content && `content ${e.content}`,
    e.timing ? `pace ${JSON.stringify(e.timing)}` : '',
    touched.length ? `live control ${touched.join('; ')}` : '',
  ]
    .filter(Boolean)
    .join(' · ');

  const refusal = byId('refusal');
  refusal.replaceChildren();
  refusal.hidden = !d.refusal;
  if (d.refusal) {
    const where = [d.refusal.field && `field ${d.refusal.field}`, d.refusal.section && `section ${d.refusal.section} of the document`].filter(Boolean).join(', ');
    refusal.append(el('strong', `Refused${where ? ` (${where})` : ''}: `), el('span', d.refusal.message));
  }

  byId('detail-body').textContent = e.body === null ? '(no body)' : typeof e.body === 'string' ? e.body : JSON.stringify(e.body, null, 2);
  const cut = byId('body-cut');
  cut.hidden = !e.body_cut;
  cut.dataset.kept = e.body_cut?.kept ?? '';
  if (e.body_cut)
    cut.textContent = `Kept cut: ${e.body_cut.bytes.toLocaleString('en-US')} bytes were sent; ${e.body_cut.kept === 'strings' ? 'each string past 1,000 characters is shortened' : 'only the start is kept, as text'}.`;

  const meta = byId('answer-meta');
  const body = byId('answer-body');
  const chunks = byId('answer-chunks');
  body.hidden = chunks.hidden = true;
  const a = d.answer;
  if (!a) meta.textContent = 'Not kept: no dashboard page was open when it was answered.';
  else {
    meta.textContent = [`status ${a.status || 'none (not HTTP)'}`, a.content_type ?? '', `first byte ${ms(a.ttfb_ms)}`, `total ${ms(a.total_ms)}`, a.chunks ? `${a.chunks.length} writes` : '']
      .filter(Boolean)
      .join(' · ');
    if (a.chunks) {
      chunks.hidden = false;
      const end = Math.max(1, a.total_ms ?? 0, ...a.chunks.map((c) => c.at_ms));
      chunks.replaceChildren(
        ...a.chunks.map((c) => {
          const li = el('li', undefined, c.reset ? 'reset' : undefined);
          const track = el('span', undefined, 'track');
          const mark = el('span', undefined, 'mark');
          // Set through the style object (CSSOM), which the page's CSP allows; no style attribute.
          mark.style.left = `${Math.min(97, (c.at_ms / end) * 100)}%`;
          track.append(mark);
          const text = el('span', c.reset ? 'connection reset' : pieceSummary(c.text), 'text');
          text.title = c.text;
          li.append(el('span', `+${c.at_ms.toFixed(1)} ms`, 'at'), track, text);
          return li;
        }),
      );
    } else {
      body.hidden = false;
      body.textContent = a.body === undefined || a.body === '' ? '(empty body)' : pretty(a.body);
    }
  }
  byId('detail-curl').textContent = d.curl;
}

/** What a written piece carries, read as a client would: the delta's text (quoted), the role, the
 * finish, the usage, [DONE]; a piece that is not whole events (split=bytes) as it is. */
function pieceSummary(text: string): string {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      if (!line.startsWith('data: ')) return line;
      const data = line.slice(6);
      if (data === '[DONE]') return data;
      try {
        const p = JSON.parse(data) as {
          error?: { message?: string };
          usage?: unknown;
          choices?: { delta?: { role?: string; content?: string | null; refusal?: string; tool_calls?: unknown }; finish_reason?: string | null }[];
        };
        if (p.error) return `error: ${p.error.message}`;
        const c = p.choices?.[0];
        const parts = [
          c?.delta?.role && `role ${c.delta.role}`,
          c?.delta?.content && JSON.stringify(c.delta.content),
          c?.delta?.refusal && `refusal ${JSON.stringify(c.delta.refusal)}`,
          c?.delta?.tool_calls !== undefined && `tool_calls ${JSON.stringify(c.delta.tool_calls)}`,
          c?.finish_reason && `finish_reason ${c.finish_reason}`,
          p.usage !== undefined && p.usage !== null && `usage ${JSON.stringify(p.usage)}`,
        ].filter(Boolean);
        return parts.length ? parts.join(' · ') : data;
      } catch {
        return line;
      }
    })
    .join('\n');
}

// ------------------------------------------------------------------ the live control

const paceText = (p: Pace) =>
  [p.ttft_ms !== undefined && `first token ${p.ttft_ms} ms`, p.tokens_per_second !== undefined && `${p.tokens_per_second} tokens/s`, p.jitter !== undefined && `jitter ${p.jitter}`]
    .filter(Boolean)
    .join(', ');
const leftText = (n: number | null | undefined) => (n === null ? 'until reset' : `${n} left`);

function renderControl(settings: Setting[]): void {
  byId('none-in-effect').hidden = settings.length > 0;
  byId('in-effect').replaceChildren(
    ...settings.map((s) => {
      const li = el('li');
      li.dataset.id = String(s.id);
      const parts = [
        s.fault !== undefined && `fault ${s.fault} (${leftText(s.left.fault)})`,
        s.content !== undefined && `content ${s.content} (${leftText(s.left.content)})`,
        s.pace && `pace ${paceText(s.pace)} (${leftText(s.left.pace)})`,
        s.key && `key ${s.key}`,
        s.model && `model ${s.model}`,
      ].filter(Boolean);
      const remove = el('button', '×');
      remove.type = 'button';
      remove.title = `end setting #${s.id}`;
      remove.addEventListener('click', () => void control('DELETE', undefined, `/${s.id}`));
      li.append(el('span', `#${s.id} ${parts.join(' · ')}`), remove);
      return li;
    }),
  );
}

async function control(method: string, body?: unknown, sub = ''): Promise<boolean> {
  const res = await fetch(`/__mock/control${sub}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = (await res.json()) as { settings?: Setting[]; error?: { message: string } };
  byId('control-error').textContent = res.ok ? '' : (answer.error?.message ?? `HTTP ${res.status}`);
  if (answer.settings) renderControl(answer.settings);
  return res.ok;
}

/** The fault chosen, with the parameters given, as the x-mock-fault header writes it. */
function faultFromForm(): string {
  const name = byId<HTMLSelectElement>('fault').value;
  if (!name) return '';
  const given = [...document.querySelectorAll<HTMLInputElement>('#fault-params input[data-param]')].filter((i) => i.value.trim() !== '');
  return [name, ...given.map((i) => `${i.dataset.param}=${i.value.trim()}`)].join('; ');
}

function settingFromForm(): Record<string, unknown> {
  const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
  const setting: Record<string, unknown> = {};
  const fault = faultFromForm();
  if (fault) setting.fault = fault;
  const content = [value('profile'), value('split') && `split=${value('split')}`].filter(Boolean).join('; ');
  if (content) setting.content = content;
  const pace: Pace = {};
  if (value('ttft')) pace.ttft_ms = Number(value('ttft'));
  if (value('tps')) pace.tokens_per_second = Number(value('tps'));
  if (value('jitter')) pace.jitter = Number(value('jitter'));
  if (Object.keys(pace).length) setting.pace = pace;
  if (value('times')) setting.times = Number(value('times'));
  if (value('key')) setting.key = value('key');
  if (value('model')) setting.model = value('model');
  return setting;
}

async function loadOptions(): Promise<void> {
  const res = await fetch('/__mock/control/options');
  if (!res.ok) return;
  options = (await res.json()) as Options;
  // Failures a frontend meets first; the kit's deviations from the document after.
  const select = byId<HTMLSelectElement>('fault');
  for (const [kind, label] of Object.entries(KINDS) as [FaultKind, string][]) {
    const group = Object.assign(el('optgroup'), { label });
    group.dataset.kind = kind;
    group.append(...options.faults.filter((f) => f.kind === kind).map((f) => Object.assign(el('option', `${f.name}: ${f.description}`), { value: f.name })));
    if (group.children.length) select.append(group);
  }
  const fill = (id: string, values: string[]) => byId(id).append(...values.filter((v) => v !== 'none').map((v) => Object.assign(el('option', v), { value: v })));
  fill('profile', options.profiles);
  fill('split', options.splits);
  fill('key', options.keys);
  fill('model', options.models);
}

/** The catalogue's groups, in the order a frontend developer needs them. */
const KINDS: Record<FaultKind, string> = {
  frontend: 'Failures a frontend must handle',
  deviation: 'Deviations from the document (each fails checks)',
  legal: 'Legal variations (fail nothing)',
  hostile: 'Hostile transports (break HTTP itself)',
};

/** The chosen fault's help and a field per parameter, its default as the placeholder. */
function describeFault(): void {
  const f = options?.faults.find((x) => x.name === byId<HTMLSelectElement>('fault').value);
  const help = byId('fault-help');
  help.replaceChildren();
  byId('fault-params').replaceChildren(
    ...(f?.params ?? []).map((p) => {
      const label = el('label', `${p.name} `);
      const input = Object.assign(el('input'), { type: 'number', min: '0', step: 'any', placeholder: String(p.default) });
      input.dataset.param = p.name;
      label.append(input, el('span', `${p.describe} (default ${p.default})`, 'sub'));
      return label;
    }),
  );
  if (!f) return;
  help.append(el('span', f.description));
  if (f.fails.length) help.append(el('span', ` Fails ${f.fails.join(', ')}.`));
}

// ------------------------------------------------------------------ wiring

byId('control-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const setting = settingFromForm();
  if (!Object.keys(setting).length) {
    byId('control-error').textContent = 'Choose a fault, a content or a pace first.';
    return;
  }
  void control('POST', setting);
});
// Reset ends every setting and empties the form: an Apply after it starts from nothing, never the
// fault that was just reset.
byId('reset').addEventListener('click', () => {
  // The form's own reset(): as a property, `reset` names the button of that id.
  HTMLFormElement.prototype.reset.call(byId('control-form'));
  describeFault();
  void control('DELETE');
});
byId('fault').addEventListener('change', describeFault);
for (const id of ['filter-text', 'filter-path', 'filter-status']) byId(id).addEventListener('input', queueRender);
byId('rows').addEventListener('click', (e) => {
  const tr = (e.target as HTMLElement).closest('tr');
  if (tr?.dataset.seq) void showDetail(Number(tr.dataset.seq));
});
byId('copy-curl').addEventListener('click', () => void navigator.clipboard?.writeText(byId('detail-curl').textContent ?? '').catch(() => undefined));
byId('table-box').addEventListener('scroll', markEdges, { passive: true });
// The box resizes with the window, the table with the rows shown.
const sized = new ResizeObserver(markEdges);
sized.observe(byId('table-box'));
sized.observe(byId('table-box').querySelector('table')!);
renderHeader();
connect();
