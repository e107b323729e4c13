// Compiling a recipe: the step tree is checked against the block grammar (20 §3), every input
// is parsed (formulas, text, datapills; legacy pills translated), every datapill is checked to
// point at a step that exists, and each step is bound to its connector. What fails becomes a
// code error in the contract's shape (14 §7): [step_number, [[label, value, message, path]]].
import { compileCondition, type CompiledCondition } from './conditions.ts';
import type { ConnectorLookup } from '../connectors/catalog.ts';
import { findConnector } from './catalog.ts';
import type { ActionDef, Connector, TriggerDef } from './connectors/types.ts';
import type { ConfigEntry, Step } from '../recipe/document.ts';
import { compileInput, InputError, pillsOf, singlePill, type Compiled } from './inputs.ts';
import { listKey, type Pill } from '../recipe/datapills.ts';
import { fieldDefs, type FieldDef } from './schema.ts';
import type { ErrorDetail, StepErrors } from '../recipe/document.ts';

export const KEYWORDS = [
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
] as const;
export type Keyword = (typeof KEYWORDS)[number];

export interface CompiledStep {
  keyword: Keyword;
  number: number;
  provider: string | null;
  name: string | null;
  as: string | null;
  skip: boolean;
  maskData: boolean;
  input: Compiled;
  block: CompiledStep[];
  /** if / elsif / while_condition; the trigger's filter. */
  condition: CompiledCondition | null;
  /** if: its elsif branches and else, in order; try: its catch; repeat: its while_condition. */
  branches: CompiledStep[];
  catchStep: CompiledStep | null;
  whileCondition: CompiledStep | null;
  /** foreach */
  source: Compiled | null;
  sourceKey: string | null;
  batchSize: number | null;
  clearScope: boolean;
  /** catch */
  retries: { count: number; intervalSeconds: number } | null;
  /** `as` of every step nested below (cleared between foreach passes with clear_scope). */
  descendants: string[];
  action: ActionDef | null;
  trigger: TriggerDef | null;
  /** extended_input_schema: input types to coerce to (20 §5.6). */
  inputSchema: FieldDef[];
  connector: Connector | null;
  /** Branches (elsif/else/catch) were attached after its own block was compiled (siblings in the export). */
  attachedLater?: boolean;
}

export interface CompiledRecipe {
  trigger: CompiledStep;
  /** Every step by its `as`. */
  steps: Map<string, CompiledStep>;
  config: ConfigEntry[];
  /** Providers whose steps need a connection. */
  connectionProviders: string[];
}

export interface CompileResult {
  recipe: CompiledRecipe | null;
  codeErrors: StepErrors;
}

const MAX_STEPS = 1000;
/** Connectors whose `code` input is source code. */
const CODE_PROVIDERS: ReadonlySet<string> = new Set(['js_eval', 'py_eval', 'workato_custom_code']);
const MAX_RETRIES = 10;
const MAX_DEPTH = 100;

const BODY: ReadonlySet<Keyword> = new Set(['action', 'if', 'foreach', 'repeat', 'try', 'stop']);
const SPECIAL_PILL_PROVIDERS: Partial<Record<Keyword, string>> = {
  foreach: 'foreach',
  repeat: 'repeat',
  catch: 'catch',
};

class Collector {
  readonly errors = new Map<number, ErrorDetail[]>();
  add(step: number, detail: ErrorDetail): void {
    const list = this.errors.get(step) ?? [];
    if (list.length < 50) list.push(detail);
    this.errors.set(step, list);
  }
  result(): StepErrors {
    return [...this.errors.entries()].sort((a, b) => a[0] - b[0]);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function flag(v: unknown): boolean {
  return v === true || v === 'true';
}

/**
 * Compiles a recipe's code. `lookup` finds the connector a step names: the catalog by default; the
 * engine passes one that also knows the workspace's released custom connectors.
 */
export function compileRecipe(
  code: unknown,
  config: ConfigEntry[],
  lookup: ConnectorLookup = findConnector,
): CompileResult {
  const errors = new Collector();
  const steps = new Map<string, CompiledStep>();
  let count = 0;
  let fallbackNumber = 0;

  const compileStep = (raw: unknown, parent: Keyword | null, depth: number): CompiledStep | null => {
    if (!isObject(raw)) {
      errors.add(fallbackNumber, ['step', null, 'must be an object']);
      return null;
    }
    const step = raw as Step;
    const number = typeof step.number === 'number' && Number.isInteger(step.number) ? step.number : fallbackNumber;
    fallbackNumber = number + 1;
    if (++count > MAX_STEPS) {
      if (count === MAX_STEPS + 1) errors.add(number, ['code', null, `has more than ${MAX_STEPS} steps`]);
      return null;
    }
    if (depth > MAX_DEPTH) {
      errors.add(number, ['block', null, 'is nested too deeply']);
      return null;
    }
    const keyword = step.keyword;
    if (typeof keyword !== 'string' || !(KEYWORDS as readonly string[]).includes(keyword)) {
      errors.add(number, ['keyword', typeof keyword === 'string' ? keyword.slice(0, 60) : null, 'is invalid']);
      return null;
    }
    const kw = keyword as Keyword;
    // A skipped step does not run, so the vendor lets it be unfinished or broken: it is not checked
    // (nor what it holds), only its alias and those below it are known, for pills that read them (nil).
    if (step.skip === true && kw !== 'trigger') return skippedStep(step, kw, number);
    checkPlacement(kw, parent, number, errors);

    const as = str(step.as);
    if (as !== null && as.length > 48)
      errors.add(number, ['as', as.slice(0, 60), 'is too long (maximum is 48 characters)']);
    const provider = kw === 'trigger' || kw === 'action' ? str(step.provider) : null;
    const name = kw === 'trigger' || kw === 'action' ? str(step.name) : null;
    const compiled: CompiledStep = {
      keyword: kw,
      number,
      provider,
      name,
      as,
      skip: step.skip === true,
      maskData: step.mask_data === true,
      input: { k: 'object', entries: [] },
      block: [],
      condition: null,
      branches: [],
      catchStep: null,
      whileCondition: null,
      source: null,
      sourceKey: null,
      batchSize: null,
      clearScope: flag(step.clear_scope),
      retries: null,
      descendants: [],
      action: null,
      trigger: null,
      connector: null,
      inputSchema: fieldDefs(step.extended_input_schema),
    };
    if (as !== null) {
      if (steps.has(as)) errors.add(number, ['as', as, 'is not unique in the recipe']);
      else steps.set(as, compiled);
    }

    // An else has no input of its own: the vendor ignores what an export leaves there (a condition copied from its if).
    const input = step.input === undefined || step.input === null || kw === 'else' ? {} : step.input;
    if (!isObject(input)) errors.add(number, ['input', null, 'must be an object']);
    else if (kw === 'if' || kw === 'elsif' || kw === 'while_condition') {
      try {
        compiled.condition = compileCondition(input, 'input');
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        errors.add(number, ['Condition', error.value, error.message, error.path]);
      }
    } else {
      try {
        // A code step's source is text, never a formula or a template: `#{...}` in Ruby or Python stays as written.
        const source =
          provider !== null && CODE_PROVIDERS.has(provider) && typeof input.code === 'string' ? input.code : undefined;
        compiled.input = compileInput(
          source === undefined ? input : Object.fromEntries(Object.entries(input).filter(([key]) => key !== 'code')),
          '',
        );
        if (source !== undefined && compiled.input.k === 'object')
          compiled.input.entries.push(['code', { k: 'literal', v: source }]);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        errors.add(number, [labelOf(error.path), error.value, error.message, error.path]);
      }
    }

    if (
      kw === 'trigger' &&
      step.filter !== undefined &&
      step.filter !== null &&
      !(isObject(step.filter) && Object.keys(step.filter).length === 0)
    ) {
      try {
        compiled.condition = compileCondition(step.filter, 'filter');
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        errors.add(number, ['Trigger condition', error.value, error.message, error.path]);
      }
    }

    if (kw === 'trigger' || kw === 'action') bindConnector(compiled, input, errors, lookup);

    if (kw === 'foreach') {
      if (as === null) errors.add(number, ['as', null, "can't be blank"]);
      const rawSource = step.source ?? (isObject(input) ? input.source : undefined);
      if (rawSource === undefined || rawSource === '')
        errors.add(number, ['Source list', null, "can't be blank", 'source']);
      else {
        try {
          compiled.source = compileInput(rawSource, 'source');
          const pill = singlePill(compiled.source);
          if (pill && pill.type === 'output') compiled.sourceKey = listKey(pill.line, pill.path);
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          errors.add(number, ['Source list', error.value, error.message, 'source']);
        }
      }
      if (step.repeat_mode === 'batch') {
        const size = Number(step.batch_size ?? 100);
        if (!Number.isInteger(size) || size < 1 || size > 10_000)
          errors.add(number, ['Batch size', step.batch_size, 'must be a whole number from 1 to 10000', 'batch_size']);
        else compiled.batchSize = size;
      } else if (step.repeat_mode !== undefined && step.repeat_mode !== 'simple') {
        errors.add(number, ['Repeat mode', step.repeat_mode, 'must be simple or batch', 'repeat_mode']);
      }
    }

    if (kw === 'catch' && isObject(input)) {
      const retryCount = Number(input.max_retry_count ?? 0);
      const interval = Number(input.retry_interval ?? 2);
      if (!Number.isInteger(retryCount) || retryCount < 0 || retryCount > MAX_RETRIES)
        errors.add(number, [
          'Retry count',
          input.max_retry_count,
          `must be a whole number from 0 to ${MAX_RETRIES}`,
          'max_retry_count',
        ]);
      else if (!Number.isFinite(interval) || interval < 0 || interval > 3600)
        errors.add(number, [
          'Retry interval',
          input.retry_interval,
          'must be a number of seconds from 0 to 3600',
          'retry_interval',
        ]);
      else compiled.retries = { count: retryCount, intervalSeconds: interval };
    }

    const rawBlock = step.block;
    const hasBlock = Array.isArray(rawBlock) && rawBlock.length > 0;
    if ((kw === 'action' || kw === 'stop' || kw === 'while_condition') && hasBlock)
      errors.add(number, ['block', null, `a ${kw} step cannot have a block`]);
    if (rawBlock !== undefined && rawBlock !== null && !Array.isArray(rawBlock))
      errors.add(number, ['block', null, 'must be an array']);
    if (Array.isArray(rawBlock) && kw !== 'action' && kw !== 'stop' && kw !== 'while_condition') {
      for (const child of rawBlock) {
        // Older exports place an if's elsif/else and a try's catch right after it, as its siblings:
        // such a step belongs to the if or try before it, as when it is the last of that one's block.
        const owner = siblingOwner(child, kw, compiled.block);
        if (owner) {
          const c = compileStep(child, owner.keyword, depth + 1);
          if (c) attachBranch(owner, c);
          continue;
        }
        const c = compileStep(child, kw, depth + 1);
        if (!c) continue;
        if (kw === 'if' && (c.keyword === 'elsif' || c.keyword === 'else')) compiled.branches.push(c);
        else if (kw === 'try' && c.keyword === 'catch') {
          if (compiled.catchStep) errors.add(c.number, ['keyword', 'catch', 'a try has at most one catch']);
          compiled.catchStep = c;
        } else if (kw === 'repeat' && c.keyword === 'while_condition') {
          if (compiled.whileCondition)
            errors.add(c.number, ['keyword', 'while_condition', 'a repeat has exactly one while_condition']);
          compiled.whileCondition = c;
        } else {
          if ((kw === 'if' && compiled.branches.length > 0) || (kw === 'try' && compiled.catchStep)) {
            errors.add(c.number, [
              'keyword',
              c.keyword,
              `must come before the ${kw === 'if' ? 'elsif/else' : 'catch'} of its block`,
            ]);
          }
          compiled.block.push(c);
        }
      }
      const elseAt = compiled.branches.findIndex((b) => b.keyword === 'else');
      if (elseAt >= 0 && elseAt !== compiled.branches.length - 1)
        errors.add((compiled.branches[elseAt] as CompiledStep).number, [
          'keyword',
          'else',
          'must be the last branch of its if',
        ]);
    }
    if (kw === 'repeat' && !compiled.whileCondition) errors.add(number, ['while_condition', null, "can't be blank"]);
    for (const child of compiled.block) if (child.attachedLater) child.descendants = collectAliases(child);
    compiled.descendants = collectAliases(compiled);
    return compiled;
  };

  /** The if or try that a sibling elsif/else/catch belongs to: the step just before it, when it is one. */
  function siblingOwner(raw: unknown, parent: Keyword, block: CompiledStep[]): CompiledStep | null {
    if (!isObject(raw)) return null;
    const keyword = raw.keyword;
    // Inside an if (a try), an elsif/else (a catch) is that block's own branch, as in current exports.
    if (((keyword === 'elsif' || keyword === 'else') && parent === 'if') || (keyword === 'catch' && parent === 'try'))
      return null;
    const last = block[block.length - 1];
    if (!last || last.skip) return null;
    if ((keyword === 'elsif' || keyword === 'else') && last.keyword === 'if') {
      // Not after the if's else: that stays the grammar error it is.
      if (last.branches.some((b) => b.keyword === 'else')) return null;
      return last;
    }
    if (keyword === 'catch' && last.keyword === 'try' && !last.catchStep) return last;
    return null;
  }

  function attachBranch(owner: CompiledStep, branch: CompiledStep): void {
    if (owner.keyword === 'try') owner.catchStep = branch;
    else owner.branches.push(branch);
    owner.attachedLater = true;
  }

  function skippedStep(step: Step, kw: Keyword, number: number): CompiledStep {
    const placeholder = (raw: Step, keyword: Keyword, n: number): CompiledStep => ({
      keyword,
      number: n,
      provider: null,
      name: null,
      as: str(raw.as),
      skip: true,
      maskData: false,
      input: { k: 'object', entries: [] },
      block: [],
      condition: null,
      branches: [],
      catchStep: null,
      whileCondition: null,
      source: null,
      sourceKey: null,
      batchSize: null,
      clearScope: false,
      retries: null,
      descendants: [],
      action: null,
      trigger: null,
      connector: null,
      inputSchema: [],
    });
    const top = placeholder(step, kw, number);
    const stack: unknown[] = [step];
    while (stack.length > 0) {
      const raw = stack.pop();
      if (!isObject(raw)) continue;
      const s = raw as Step;
      const as = str(s.as);
      if (as !== null && !steps.has(as))
        steps.set(
          as,
          s === step
            ? top
            : placeholder(
                s,
                (KEYWORDS as readonly string[]).includes(String(s.keyword)) ? (s.keyword as Keyword) : kw,
                typeof s.number === 'number' ? s.number : number,
              ),
        );
      if (Array.isArray(s.block)) stack.push(...s.block);
    }
    top.descendants = collectAliases(top);
    return top;
  }

  const trigger = compileStep(code, null, 0);
  if (trigger && trigger.keyword !== 'trigger')
    errors.add(trigger.number, ['keyword', trigger.keyword, 'the root step must be the trigger']);
  if (trigger) checkPills(trigger, steps, errors);

  const connectionProviders = [...steps.values(), ...(trigger ? [trigger] : [])]
    .filter((s) => s.connector?.needsConnection)
    .map((s) => s.provider as string)
    .filter((p, i, all) => all.indexOf(p) === i);

  const codeErrors = errors.result();
  if (codeErrors.length > 0 || !trigger || trigger.keyword !== 'trigger') return { recipe: null, codeErrors };
  return { recipe: { trigger, steps, config, connectionProviders }, codeErrors };
}

function labelOf(path: string): string {
  const label =
    path === ''
      ? 'input'
      : path
          .split('.')
          .map((p) => p.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()))
          .join('/');
  return label.length > 100 ? `${label.slice(0, 97)}...` : label;
}

function checkPlacement(kw: Keyword, parent: Keyword | null, number: number, errors: Collector): void {
  const allowed =
    kw === 'trigger'
      ? parent === null
      : kw === 'elsif' || kw === 'else'
        ? parent === 'if'
        : kw === 'catch'
          ? parent === 'try'
          : kw === 'while_condition'
            ? parent === 'repeat'
            : BODY.has(kw) && parent !== null;
  if (!allowed) {
    const where = parent === null ? 'at the root' : `inside a ${parent} block`;
    errors.add(number, ['keyword', kw, `is not allowed ${where}`]);
  }
}

function bindConnector(step: CompiledStep, input: unknown, errors: Collector, lookup: ConnectorLookup): void {
  if (step.provider === null) {
    errors.add(step.number, ['provider', null, "can't be blank"]);
    return;
  }
  const connector = lookup(step.provider);
  if (!connector) {
    errors.add(step.number, ['provider', step.provider, 'is invalid: no such connector on this server']);
    return;
  }
  step.connector = connector;
  if (step.name === null) {
    errors.add(step.number, ['name', null, "can't be blank"]);
    return;
  }
  const def = step.keyword === 'trigger' ? connector.triggers[step.name] : connector.actions[step.name];
  if (!def || !Object.hasOwn(step.keyword === 'trigger' ? connector.triggers : connector.actions, step.name)) {
    errors.add(step.number, [
      'name',
      step.name,
      `is invalid: ${connector.provider} has no ${step.keyword} named ${step.name}`,
    ]);
    return;
  }
  if (step.keyword === 'trigger') step.trigger = def as TriggerDef;
  else step.action = def as ActionDef;
  for (const field of def.required ?? []) {
    const value = field.path.split('.').reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), input);
    if (value === undefined || value === null || value === '')
      errors.add(step.number, [field.label, null, "can't be blank", field.path]);
  }
  if (step.keyword === 'trigger' && (def as TriggerDef).check && isObject(input)) {
    for (const problem of (def as TriggerDef).check?.(input as never) ?? []) errors.add(step.number, problem);
  }
}

function collectAliases(step: CompiledStep): string[] {
  const out: string[] = [];
  const visit = (s: CompiledStep) => {
    for (const child of [...s.block, ...s.branches, ...(s.catchStep ? [s.catchStep] : [])]) {
      if (child.as) out.push(child.as);
      visit(child);
    }
  };
  visit(step);
  return out;
}

/**
 * Providers that name one connector: a step of one and a datapill naming the other are the same
 * step to the vendor (exports carry both spellings: `http` and `rest` steps, callable recipes whose
 * pills name recipe functions). Any other mismatch is refused, as the vendor's validator does.
 */
const PROVIDER_FAMILY: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  rest: 'http',
  http: 'http',
  workato_recipe_function: 'recipe_function',
  workato_service: 'recipe_function',
});

function sameConnector(a: string, b: string): boolean {
  const family = PROVIDER_FAMILY[a];
  return family !== undefined && family === PROVIDER_FAMILY[b];
}

/** Every datapill must point at a step of the recipe, with that step's provider. */
function checkPills(trigger: CompiledStep, steps: Map<string, CompiledStep>, errors: Collector): void {
  const visit = (s: CompiledStep) => {
    const pills: Pill[] = [...pillsOf(s.input), ...(s.source ? pillsOf(s.source) : [])];
    if (s.condition) pills.push(...conditionPills(s.condition));
    for (const pill of pills) {
      if (pill.type !== 'output') continue;
      const target = steps.get(pill.line);
      if (!target) {
        errors.add(s.number, ['Datapill', pill.line, `refers to step "${pill.line}", which is not in the recipe`]);
        continue;
      }
      const expected =
        target.keyword === 'trigger' || target.keyword === 'action'
          ? target.provider
          : SPECIAL_PILL_PROVIDERS[target.keyword];
      if (
        expected !== undefined &&
        expected !== null &&
        pill.provider !== expected &&
        !sameConnector(pill.provider, expected) &&
        !(target.provider === 'workato_variable' && pill.provider === 'workato_variable')
      ) {
        errors.add(s.number, [
          'Datapill',
          pill.line,
          `names provider "${pill.provider}" but step "${pill.line}" is ${expected}`,
        ]);
      }
    }
    for (const child of [
      ...s.block,
      ...s.branches,
      ...(s.catchStep ? [s.catchStep] : []),
      ...(s.whileCondition ? [s.whileCondition] : []),
    ])
      visit(child);
  };
  visit(trigger);
}

function conditionPills(c: CompiledCondition): Pill[] {
  if (c.k === 'group') return c.items.flatMap(conditionPills);
  return [...pillsOf(c.lhs), ...pillsOf(c.rhs)];
}
