// The recipe editor's page: the draft's steps as forms (the connector and its operation picked
// from the catalog, the input fields the connector describes, conditions, loops, try/catch, stop),
// the datapills earlier steps give, each step's start errors beside it, and any step the editor
// cannot draw as its JSON, editable in place. Data in, HTML out; the changes are editor-model.ts.
import type { FormulaCheck } from '../../recipe/formula/check.ts';
import { html, type Html } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';
import { iconImg, type IconOf } from './icons.ts';
import { describeStep, wordsOf } from './step-words.ts';
import { blockOf, pathText, walk, type StepDoc, type StepPath } from './editor-model.ts';

/** What the editor knows of an operation (a trigger or an action) of a connector. */
export interface OperationInfo {
  title: string;
  description?: string | undefined;
  /** Fields as the connector describes them: required ones first. */
  fields: ReadonlyArray<{
    name: string;
    label: string;
    required: boolean;
    hint?: string | undefined;
    options?: ReadonlyArray<readonly [string, string]> | undefined;
  }>;
  /** Output field paths an earlier step's datapills give (`['payload', 'total']`). */
  outputs: ReadonlyArray<readonly string[]>;
}

export interface ConnectorInfo {
  name: string;
  title: string;
  source: 'built_in' | 'saas' | 'custom';
  needsConnection: boolean;
  triggers: Readonly<Record<string, OperationInfo>>;
  actions: Readonly<Record<string, OperationInfo>>;
}

export interface EditorData {
  /** null: a new recipe. */
  recipe: { id: number; name: string; version_no: number; running: boolean } | null;
  name: string;
  comment: string;
  folders: ReadonlyArray<{ id: number; name: string }>;
  folderId?: number | undefined;
  root: StepDoc;
  config: unknown[];
  /** Every connector of the catalog, for the pickers. */
  catalog: ReadonlyArray<{ name: string; title: string; source: string }>;
  /**
   * The catalog as one JSON resource for the page's script (its URL names the catalog's version):
   * a step that has its application lists only that one, and the script fills in the rest.
   */
  catalogUrl: string;
  /** The step whose whole catalog is drawn (*Other applications*, a search), and the search typed. */
  openPicker?: { path: string; query: string } | undefined;
  /** The connectors the draft names (their operations and fields). */
  connectors: ReadonlyMap<string, ConnectorInfo>;
  /** Connections of this environment by provider, for the connection pickers. */
  connections: ReadonlyMap<string, ReadonlyArray<{ id: number; name: string }>>;
  /** Start errors by step number. */
  errors: ReadonlyMap<number, string[]>;
  /** The formula checker (the engine's parser and evaluator): a formula field's problem or value. */
  checkFormula: (source: string) => FormulaCheck;
  /** Each connector's icon. */
  iconOf: IconOf;
  message?: { text: string; kind: 'ok' | 'error' } | undefined;
}

const KEYWORDS: Record<string, string> = {
  trigger: 'Trigger',
  action: 'Action',
  if: 'IF',
  elsif: 'ELSE IF',
  else: 'ELSE',
  foreach: 'For each',
  repeat: 'Repeat',
  while_condition: 'While',
  try: 'Try',
  catch: 'On error',
  stop: 'Stop job',
};

const OPERANDS: ReadonlyArray<readonly [string, string]> = [
  ['equals_to', 'equals'],
  ['not_equals_to', 'does not equal'],
  ['contains', 'contains'],
  ['not_contains', 'does not contain'],
  ['starts_with', 'starts with'],
  ['not_starts_with', 'does not start with'],
  ['ends_with', 'ends with'],
  ['not_ends_with', 'does not end with'],
  ['greater_than', 'is greater than'],
  ['less_than', 'is less than'],
  ['is_true', 'is true'],
  ['is_not_true', 'is not true'],
  ['present', 'is present'],
  ['blank', 'is blank'],
];

export const FIELD_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/** `#{_dp('…')}`: an output datapill as the vendor's recipes write it. */
export function pillText(provider: string, line: string, path: readonly string[]): string {
  return `#{_dp('${JSON.stringify({ pill_type: 'output', provider, line, path })}')}`;
}

/** A datapill as a person reads it: `Step 1 · payload.total`. */
function pillLabel(text: string, names: ReadonlyMap<string, string>): string {
  return text.replace(/#\{_dp\('(.*?)'\)\}/g, (whole, json: string) => {
    try {
      const pill = JSON.parse(json) as { line?: string; path?: unknown[] };
      return `[${names.get(String(pill.line)) ?? pill.line} · ${(pill.path ?? []).map(String).join('.')}]`;
    } catch {
      return whole;
    }
  });
}

/** What a step is, in the vendor's words: "Search records in Salesforce", "IF total > 1000". */
export function stepSummary(step: StepDoc, connectors: ReadonlyMap<string, ConnectorInfo>): string {
  const keyword = String(step.keyword ?? 'action');
  if ((keyword === 'trigger' || keyword === 'action') && (typeof step.provider !== 'string' || step.provider === ''))
    return keyword === 'trigger' ? 'Pick a trigger' : 'Pick an application and an action';
  return describeStep(
    step,
    wordsOf((provider) => connectors.get(provider)),
  );
}

function stepNames(data: EditorData): Map<string, string> {
  const names = new Map<string, string>();
  for (const { step } of walk(data.root))
    if (typeof step.as === 'string') names.set(step.as, `Step ${String(step.number ?? '?')}`);
  return names;
}

/** A datapill of the recipe: the step that gives it, its label and its text. */
interface Pill {
  step: number;
  label: string;
  text: string;
}

/**
 * The recipe's datapills in step order (their outputs as the connector describes them), at most
 * 200. The datapills of the steps before a step are the first of them: the page lists them once.
 */
function recipePills(data: EditorData): Pill[] {
  const pills: Pill[] = [];
  for (const { step } of walk(data.root)) {
    if (typeof step.number !== 'number' || typeof step.as !== 'string') continue;
    const provider = typeof step.provider === 'string' ? step.provider : '';
    const connector = data.connectors.get(provider);
    const ops = step.keyword === 'trigger' ? connector?.triggers : connector?.actions;
    const op = typeof step.name === 'string' ? ops?.[step.name] : undefined;
    const outputs = [...(op?.outputs ?? []), ...schemaPaths(step.extended_output_schema, [])];
    const seen = new Set<string>();
    for (const path of outputs) {
      const key = path.join('.');
      if (seen.has(key)) continue;
      seen.add(key);
      pills.push({ step: step.number, label: `Step ${step.number} · ${key}`, text: pillText(provider, step.as, path) });
    }
  }
  return pills.sort((a, b) => a.step - b.step).slice(0, 200);
}

/** How many of the recipe's datapills come from the steps before this one. */
function pillsBefore(pills: readonly Pill[], number: number): number {
  let n = 0;
  while (n < pills.length && (pills[n] as Pill).step < number) n++;
  return n;
}

/** Field paths of a vendor output schema (`[{name, properties: [...]}]`), two levels deep. */
export function schemaPaths(schema: unknown, prefix: readonly string[]): string[][] {
  if (!Array.isArray(schema) || prefix.length > 2) return [];
  return schema.flatMap((field: unknown) => {
    if (typeof field !== 'object' || field === null) return [];
    const name = (field as { name?: unknown }).name;
    if (typeof name !== 'string' || name === '') return [];
    const path = [...prefix, name];
    return [path, ...schemaPaths((field as { properties?: unknown }).properties, path)];
  });
}

function errorsOf(data: EditorData, step: StepDoc): Html | '' {
  const errors = typeof step.number === 'number' ? data.errors.get(step.number) : undefined;
  return errors && errors.length > 0
    ? html`<ul class="step-errors" role="list">${errors.map((e) => html`<li>${e}</li>`)}</ul>`
    : '';
}

function controls(path: StepPath, step: StepDoc): Html | '' {
  if (path.length === 0) return '';
  const p = pathText(path);
  const fixed = step.keyword === 'while_condition';
  const button = (op: string, label: string, title: string) =>
    html`<button type="submit" name="op" value="${op}:${p}" class="small" title="${title}" aria-label="${title}: step ${String(step.number)}">${label}</button>`;
  return fixed
    ? ''
    : html`<span class="step-controls">${button('up', '↑', 'Move up')}${button('down', '↓', 'Move down')}${button('indent', '→', 'Move into the step above')}${button('outdent', '←', 'Move out of its block')}${button('delete', 'Delete', 'Delete this step')}</span>`;
}

function addMenu(path: StepPath, step: StepDoc): Html | '' {
  const block = blockOf(step);
  if (!block) return '';
  const p = pathText(path);
  const kinds: Array<[string, string]> = [
    ['action', 'Action'],
    ['if', 'IF'],
    ['foreach', 'For each'],
    ['repeat', 'Repeat while'],
    ['try', 'Try / catch'],
    ['stop', 'Stop'],
  ];
  if (step.keyword === 'if' && !block.some((s) => s.keyword === 'else'))
    kinds.push(['elsif', 'ELSE IF'], ['else', 'ELSE']);
  return html`<div class="add-step" aria-label="Add a step here">${kinds.map(([kind, label]) => html`<button type="submit" name="op" value="add:${p}:${kind}" class="small link">+ ${label}</button>`)}</div>`;
}

function textField(
  name: string,
  label: string,
  value: string,
  hint?: string,
  options?: ReadonlyArray<readonly [string, string]>,
): Html {
  const id = `fld-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const control =
    options && options.length > 0
      ? html`<select id="${id}" name="${name}"><option value="">—</option>${options.map(([label2, v]) => html`<option value="${v}"${v === value ? html` selected` : ''}>${label2}</option>`)}</select>`
      : html`<input id="${id}" name="${name}" value="${value}" class="pill-target" autocomplete="off">`;
  return html`<div class="field"><label for="${id}">${label}</label>${control}${hint ? html`<span class="muted small">${hint}</span>` : ''}</div>`;
}

/** What the formula checker says of a formula, as the field shows it. */
export function formulaStatus(check: FormulaCheck): string {
  if (!check.ok) return check.message;
  return check.value === undefined ? 'Formula OK.' : `Formula OK: gives ${check.value}`;
}

/**
 * A step's input field with its mode: text (datapills between words) or formula (the vendor's
 * `=` form, shown without its `=`). The checkbox switches the mode; the formula is checked here
 * and, with script, again as the person types (editor.js).
 */
function valueField(
  data: EditorData,
  at: string,
  label: string,
  value: string,
  hint?: string,
  options?: ReadonlyArray<readonly [string, string]>,
): Html {
  const formula = value.startsWith('=');
  if (!formula && options && options.length > 0) return textField(`f:${at}`, label, value, hint, options);
  const id = `fld-f-${at.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const source = formula ? value.slice(1) : value;
  const check = formula && source.trim() !== '' ? data.checkFormula(source) : undefined;
  return html`<div class="field value-field${formula ? ' formula' : ''}"><label for="${id}">${label}</label>
<div class="value-row"><span class="formula-eq" aria-hidden="true">=</span><input id="${id}" name="f:${at}" value="${source}" class="pill-target" autocomplete="off" spellcheck="false" data-formula="${formula ? '1' : '0'}" aria-describedby="${id}-status"${check && !check.ok ? html` aria-invalid="true"` : ''}>
<label class="formula-toggle small"><input type="checkbox" name="fm:${at}" value="1"${formula ? html` checked` : ''} aria-label="${label}: formula mode"> Formula</label></div>
<span id="${id}-status" class="formula-status small${check && !check.ok ? ' bad' : ''}" aria-live="polite">${check ? formulaStatus(check) : ''}</span>${hint ? html`<span class="muted small">${hint}</span>` : ''}</div>`;
}

export const CATALOG_GROUPS: ReadonlyArray<readonly [string, string]> = [
  ['built_in', 'Built-in'],
  ['saas', 'Applications'],
  ['custom', 'Custom connectors'],
];

/** The catalog's connectors whose title or name holds the query (every one for an empty query). */
export function searchCatalog<T extends { name: string; title: string }>(catalog: readonly T[], query: string): T[] {
  const q = query.trim().toLowerCase();
  return q === '' ? [...catalog] : catalog.filter((c) => c.title.toLowerCase().includes(q) || c.name.includes(q));
}

/**
 * A trigger's or action's application and operation. A step with no application yet, or whose
 * *Other applications* was pressed, lists the whole catalog (and its grid of icons); one that has
 * its application lists only that one, with the catalog's URL for the script to fill in the rest,
 * so a page sends the catalog once however many steps it has.
 */
function operationPicker(data: EditorData, path: StepPath, step: StepDoc): Html {
  const p = pathText(path);
  const trigger = step.keyword === 'trigger';
  const provider = typeof step.provider === 'string' ? step.provider : '';
  const connector = data.connectors.get(provider);
  const ops = connector ? (trigger ? connector.triggers : connector.actions) : {};
  const open = provider === '' || data.openPicker?.path === p;
  const query = data.openPicker?.path === p ? data.openPicker.query : '';
  const listed = searchCatalog(data.catalog, query);
  const current = data.catalog.find((c) => c.name === provider) ?? {
    name: provider,
    title: connector?.title ?? provider,
  };
  const apps = open
    ? html`${provider === '' ? html`<option value="">Pick an application…</option>` : ''}${CATALOG_GROUPS.map(
        ([source, label]) => {
          const entries = listed.filter((c) => c.source === source);
          return entries.length === 0
            ? ''
            : html`<optgroup label="${label}">${entries.map((c) => html`<option value="${c.name}"${c.name === provider ? html` selected` : ''}>${c.title}</option>`)}</optgroup>`;
        },
      )}`
    : html`<option value="${current.name}" selected>${current.title}</option>`;
  return html`<div class="picker">
<div class="field"><label for="pick-${p}">Application</label><select id="pick-${p}" name="pick:${p}"${open ? '' : html` data-catalog="${data.catalogUrl}"`}>${apps}</select></div>
${
  connector
    ? html`<div class="field"><label for="pickop-${p}">${trigger ? 'Trigger' : 'Action'}</label><select id="pickop-${p}" name="pickop:${p}">${step.name ? '' : html`<option value="">Pick one…</option>`}${Object.entries(ops).map(([name, op]) => html`<option value="${name}"${name === step.name ? html` selected` : ''}>${op.title}</option>`)}</select></div>`
    : ''
}
<button type="submit" name="op" value="choose:${p}" class="small">Use</button>${open ? '' : html` <button type="submit" name="op" value="apps:${p}" class="small other-apps">Other applications</button>`}</div>${provider === '' || query !== '' ? catalogGrid(data, p, listed, query) : ''}`;
}

/** How many of a search's matches the grid of icons draws (the picker beside it lists them all). */
export const GRID_SHOWN = 50;

/**
 * The catalog as buttons with their icons (one press picks one), with a search over it. The whole
 * catalog is drawn for the editor's script to search as it is typed; a search sent without script
 * draws its first GRID_SHOWN matches and says how many more a longer query would narrow down.
 */
function catalogGrid(data: EditorData, p: string, matches: EditorData['catalog'], query: string): Html {
  const id = `appq-${p.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  // In the grid's order (by group), the first matches.
  const grouped = CATALOG_GROUPS.flatMap(([source]) => matches.filter((c) => c.source === source));
  const listed = query === '' ? grouped : grouped.slice(0, GRID_SHOWN);
  const more = grouped.length - listed.length;
  return html`<details class="catalog"${query !== '' ? html` open` : ''}><summary>Browse the applications</summary><div class="catalog-search"><label for="${id}">Filter by name</label><input id="${id}" type="search" name="appq:${p}" value="${query}" autocomplete="off" data-catalog-filter> <button type="submit" name="op" value="findapp:${p}" class="small">Search</button></div>${listed.length === 0 ? html`<p class="muted small">No application matches “${query}”.</p>` : ''}${CATALOG_GROUPS.map(
    ([source, label]) => {
      const entries = listed.filter((c) => c.source === source);
      return entries.length === 0
        ? ''
        : html`<h4>${label}</h4><ul class="catalog-grid">${entries.map((c) => html`<li><button type="submit" name="op" value="pickapp:${p}:${c.name}" class="app">${iconImg(data.iconOf(c.name))}<span>${c.title}</span></button></li>`)}</ul>`;
    },
  )}${more > 0 ? html`<p class="muted small catalog-more">${String(more)} more: type more of the name to narrow them down.</p>` : ''}</details>`;
}

function inputFields(data: EditorData, path: StepPath, step: StepDoc): Html {
  const p = pathText(path);
  const input = typeof step.input === 'object' && step.input !== null ? (step.input as Record<string, unknown>) : {};
  const provider = typeof step.provider === 'string' ? step.provider : '';
  const connector = data.connectors.get(provider);
  const op =
    typeof step.name === 'string'
      ? (step.keyword === 'trigger' ? connector?.triggers : connector?.actions)?.[step.name]
      : undefined;
  const described = op?.fields ?? [];
  const keys = [
    ...described.map((f) => f.name),
    ...Object.keys(input).filter((k) => !described.some((f) => f.name === k)),
  ];
  const fields = keys.map((key) => {
    const def = described.find((f) => f.name === key);
    const value = input[key];
    const label = def ? `${def.label}${def.required ? ' (required)' : ''}` : key;
    if (!FIELD_KEY.test(key)) return '';
    if (value !== undefined && typeof value !== 'string')
      return html`<div class="field"><label for="fj-${p}-${key}">${label} <span class="muted small">JSON</span></label><textarea id="fj-${p}-${key}" name="fj:${p}:${key}" rows="3" class="code">${JSON.stringify(value, null, 2)}</textarea></div>`;
    return valueField(data, `${p}:${key}`, label, value ?? '', def?.hint, def?.options);
  });
  const odd = Object.keys(input).filter((k) => !FIELD_KEY.test(k));
  return html`${fields}${odd.length > 0 ? html`<p class="muted small">Fields kept as they are: ${odd.join(', ')}</p>` : ''}
<div class="field add-field"><label for="fadd-${p}">Add a field</label><input id="fadd-${p}" name="fadd:${p}" placeholder="field name" pattern="[A-Za-z_][A-Za-z0-9_]*" autocomplete="off"></div>`;
}

function conditionFields(path: StepPath, step: StepDoc, names: ReadonlyMap<string, string>): Html {
  const p = pathText(path);
  const input = (step.input ?? {}) as { conditions?: unknown };
  const conditions = Array.isArray(input.conditions) ? (input.conditions as Array<Record<string, unknown>>) : [];
  return html`${conditions.map((c, i) => {
    const lhs = typeof c.lhs === 'string' ? c.lhs : '';
    const rhs = typeof c.rhs === 'string' ? c.rhs : '';
    return html`<div class="condition">${i > 0 ? html`<span class="muted">and</span>` : ''}
<input name="c:${p}:${i}:lhs" value="${lhs}" aria-label="Value to test" class="pill-target" autocomplete="off">
<select name="c:${p}:${i}:operand" aria-label="Comparison">${OPERANDS.map(([v, label]) => html`<option value="${v}"${v === c.operand ? html` selected` : ''}>${label}</option>`)}</select>
<input name="c:${p}:${i}:rhs" value="${rhs}" aria-label="Compared with" class="pill-target" autocomplete="off">
${lhs.includes('_dp(') ? html`<span class="muted small">${pillLabel(lhs, names)}</span>` : ''}</div>`;
  })}<button type="submit" name="op" value="addcond:${p}" class="small link">+ and another condition</button>`;
}

/** Keywords drawn as forms; any other step is shown as its JSON. */
const DRAWN = new Set([
  'trigger',
  'action',
  'if',
  'elsif',
  'else',
  'foreach',
  'repeat',
  'while_condition',
  'try',
  'catch',
  'stop',
]);

function stepBody(data: EditorData, path: StepPath, step: StepDoc, names: ReadonlyMap<string, string>): Html {
  const p = pathText(path);
  const keyword = String(step.keyword ?? '');
  const provider = typeof step.provider === 'string' ? step.provider : '';
  const known = keyword !== 'trigger' && keyword !== 'action' ? true : provider === '' || data.connectors.has(provider);
  if (!DRAWN.has(keyword) || !known) {
    const { block: _block, ...rest } = step;
    return html`<p class="muted small">The editor cannot draw this step: it is kept as it is. Edit its JSON here (its inner steps stay below).</p>
<textarea name="json:${p}" rows="8" class="code" aria-label="Step ${String(step.number)} as JSON">${JSON.stringify(rest, null, 2)}</textarea>`;
  }
  switch (keyword) {
    case 'trigger':
    case 'action':
      return html`${operationPicker(data, path, step)}${step.name ? inputFields(data, path, step) : ''}${
        keyword === 'trigger' && provider === 'workato_webhooks'
          ? textField(
              `schema:${p}`,
              'Payload fields (comma separated: their datapills)',
              schemaPaths(step.extended_output_schema, [])
                .filter((x) => x[0] === 'payload' && x.length === 2)
                .map((x) => x[1])
                .join(', '),
            )
          : ''
      }`;
    case 'if':
    case 'elsif':
    case 'while_condition':
      return conditionFields(path, step, names);
    case 'foreach':
      return textField(`src:${p}`, 'List (a datapill)', typeof step.source === 'string' ? step.source : '');
    case 'catch':
    case 'stop':
      return inputFields(data, path, step);
    default:
      return html``;
  }
}

/** Page-wide facts each step draws from: the steps' names and the recipe's datapills. */
interface Drawn {
  names: ReadonlyMap<string, string>;
  pills: readonly Pill[];
}

function drawStep(data: EditorData, path: StepPath, step: StepDoc, drawn: Drawn): Html {
  const { names } = drawn;
  const number = typeof step.number === 'number' ? step.number : 0;
  const keyword = String(step.keyword ?? 'action');
  const pills = keyword === 'trigger' ? 0 : pillsBefore(drawn.pills, number);
  const block = blockOf(step);
  return html`<li class="edit-step kw-${keyword}" id="step-${number}"><fieldset>
<legend><span class="step-no">${number}</span> <span class="keyword">${keyword === 'trigger' || keyword === 'action' ? (KEYWORDS[keyword] ?? keyword) : stepSummary(step, data.connectors)}</span> ${(keyword === 'trigger' || keyword === 'action') && typeof step.provider === 'string' && step.provider !== '' ? html`${iconImg(data.iconOf(step.provider))} ` : ''}${keyword === 'trigger' || keyword === 'action' ? stepSummary(step, data.connectors) : ''}</legend>
${controls(path, step)}${errorsOf(data, step)}
${stepBody(data, path, step, names)}
${
  pills > 0 && keyword !== 'else' && keyword !== 'try' && keyword !== 'repeat'
    ? html`<details class="pills" data-pills="${String(pills)}"><summary>Datapills from earlier steps</summary><p class="muted small">The first ${String(pills)} of <a href="#datapills">the recipe's datapills</a>.</p></details>`
    : ''
}
${block ? html`<ol class="edit-block">${block.map((child, i) => drawStep(data, [...path, i], child, drawn))}</ol>${addMenu(path, step)}` : ''}
</fieldset></li>`;
}

/**
 * The recipe's datapills, once for the page: each step's *Datapills from earlier steps* names how
 * many of the first it may use, and the editor's script copies those into the step when it is
 * opened. Without script, a datapill is copied from here as text.
 */
function datapillList(pills: readonly Pill[]): Html | '' {
  if (pills.length === 0) return '';
  return html`<details class="pills" id="datapills"><summary>The recipe's datapills</summary><ul>${pills.map((pill) => html`<li><button type="button" class="pill" data-pill="${pill.text}">${pill.label}</button> <code class="small">${pill.text}</code></li>`)}</ul></details>`;
}

function connectionsSection(data: EditorData): Html | '' {
  const needed = [...data.connectors.values()].filter((c) => c.needsConnection);
  if (needed.length === 0) return '';
  const accountOf = (provider: string) => {
    const entry = data.config.find(
      (e) => typeof e === 'object' && e !== null && (e as { provider?: unknown }).provider === provider,
    ) as { account_id?: unknown } | undefined;
    return typeof entry?.account_id === 'number' ? entry.account_id : null;
  };
  return html`<fieldset class="connections"><legend>Connections</legend>${needed.map((c) => {
    const options = data.connections.get(c.name) ?? [];
    const chosen = accountOf(c.name);
    return html`<div class="field"><label for="conn-${c.name}">${c.title}</label><select id="conn-${c.name}" name="conn:${c.name}"><option value="">No connection</option>${options.map((o) => html`<option value="${o.id}"${o.id === chosen ? html` selected` : ''}>${o.name}</option>`)}</select>${options.length === 0 ? html`<span class="muted small">No ${c.title} connection in this environment yet.</span>` : ''}</div>`;
  })}</fieldset>`;
}

export function editorPage(frame: PageFrame, data: EditorData, csrf: string): string {
  const action = data.recipe ? `/console/recipes/${data.recipe.id}/edit` : '/console/recipes/new';
  const drawn: Drawn = { names: stepNames(data), pills: recipePills(data) };
  const errorCount = [...data.errors.values()].reduce((n, e) => n + e.length, 0);
  const tree = drawStep(data, [], data.root, drawn);
  return page(
    frame,
    html`${data.message ? notice(data.message.text, data.message.kind) : ''}
${data.recipe ? html`<p><a href="/console/recipes/${data.recipe.id}">${data.recipe.name}</a> · editing version ${data.recipe.version_no}: saving makes version ${data.recipe.version_no + 1}.</p>` : ''}
<form method="post" action="${action}" class="editor" novalidate data-formula-check="/console/recipes/formula/check">${csrfField(csrf)}
<input type="hidden" name="code" value="${JSON.stringify(data.root)}">
<input type="hidden" name="config" value="${JSON.stringify(data.config)}">
<div class="field"><label for="recipe-name">Name</label><input id="recipe-name" name="name" value="${data.name}" maxlength="255" required></div>
${
  data.recipe
    ? html`<div class="field"><label for="recipe-comment">What changed (the version's comment)</label><input id="recipe-comment" name="comment" value="${data.comment}" maxlength="1000"></div>`
    : html`<div class="field"><label for="recipe-folder">Folder</label><select id="recipe-folder" name="folder_id"><option value="">Home</option>${data.folders.map((f) => html`<option value="${f.id}"${f.id === data.folderId ? html` selected` : ''}>${f.name}</option>`)}</select></div>`
}
<p class="muted small" role="status">${errorCount === 0 ? 'Nothing would stop this recipe from starting.' : `${errorCount} problem${errorCount === 1 ? '' : 's'} would stop it from starting: see the steps.`}</p>
<ol class="edit-tree">${tree}</ol>
${datapillList(drawn.pills)}
${connectionsSection(data)}
<div class="editor-actions"><button type="submit" name="op" value="check">Check</button> <button type="submit" name="op" value="save" class="primary">Save</button></div>
</form>`,
    // The script fetches the catalog at load when a picker lists only its step's application.
    {
      scripts: ['/console/assets/editor.js'],
      fetches: tree.text.includes(' data-catalog="') ? [data.catalogUrl] : [],
    },
  );
}
