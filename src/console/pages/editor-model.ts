// The recipe editor's changes to a recipe's step tree (the vendor's JSON: a trigger whose `block`
// holds the steps, each control step holding its own). Pure functions over plain objects: the
// draft travels in the form, each button names one change, the server applies it and draws again.
import { randomBytes, randomUUID } from 'node:crypto';

export type StepDoc = Record<string, unknown>;

/** Most steps and nesting the editor works on (larger recipes stay editable as JSON). */
export const MAX_EDITOR_STEPS = 2000;
export const MAX_EDITOR_DEPTH = 40;

/** Step kinds a person can add, and the keywords the editor draws as forms. */
export const ADDABLE = ['action', 'if', 'elsif', 'else', 'foreach', 'repeat', 'try', 'stop'] as const;
export type Addable = (typeof ADDABLE)[number];

/** A step's place: the indexes into each `block` from the trigger ("" is the trigger itself). */
export type StepPath = number[];

export function parsePath(text: string): StepPath | null {
  if (text === '') return [];
  if (!/^\d{1,4}(\.\d{1,4}){0,39}$/.test(text)) return null;
  return text.split('.').map(Number);
}

export const pathText = (path: StepPath): string => path.join('.');

export function blockOf(step: StepDoc): StepDoc[] | null {
  return Array.isArray(step.block) ? (step.block as StepDoc[]) : null;
}

export function stepAt(root: StepDoc, path: StepPath): StepDoc | undefined {
  let step: StepDoc | undefined = root;
  for (const i of path) {
    const block: StepDoc[] | null = step ? blockOf(step) : null;
    step = block?.[i];
    if (!isStep(step)) return undefined;
  }
  return step;
}

export function isStep(value: unknown): value is StepDoc {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The recipe's code as a step tree; null when it is not a JSON object or is too large to edit. */
export function parseCode(text: string): StepDoc | null {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isStep(root)) return null;
  let count = 0;
  const fits = (step: StepDoc, depth: number): boolean => {
    if (++count > MAX_EDITOR_STEPS || depth > MAX_EDITOR_DEPTH) return false;
    const block = blockOf(step);
    return block === null || block.every((child) => isStep(child) && fits(child, depth + 1));
  };
  return fits(root, 0) ? root : null;
}

/** A new trigger: a webhook, the simplest a person can call. */
export function newRecipeCode(): StepDoc {
  return {
    number: 0,
    provider: 'workato_webhooks',
    name: 'new_event',
    as: newAs(),
    title: null,
    description: null,
    keyword: 'trigger',
    dynamicPickListSelection: {},
    toggleCfg: {},
    input: { webhook_suffix: 'event' },
    extended_output_schema: [],
    block: [],
    uuid: randomUUID(),
  };
}

/** An 8-character step name, as the vendor's editor gives each step (`as`). */
export function newAs(): string {
  return randomBytes(4).toString('hex');
}

export function newCondition(): StepDoc {
  return { operand: 'equals_to', lhs: '', rhs: '', uuid: randomUUID() };
}

function conditionInput(): StepDoc {
  return { type: 'compound', operand: 'and', conditions: [newCondition()] };
}

export function newStep(kind: Addable): StepDoc {
  const base = { keyword: kind, as: newAs(), uuid: randomUUID() };
  switch (kind) {
    case 'action':
      return { ...base, input: {} };
    case 'if':
    case 'elsif':
      return { ...base, input: conditionInput(), block: [] };
    case 'else':
      return { ...base, input: {}, block: [] };
    case 'foreach':
      return { ...base, source: '', repeat_mode: 'simple', input: {}, block: [] };
    case 'repeat':
      return {
        ...base,
        block: [{ keyword: 'while_condition', as: newAs(), uuid: randomUUID(), input: conditionInput() }],
      };
    case 'try':
      return {
        ...base,
        block: [
          {
            keyword: 'catch',
            as: newAs(),
            uuid: randomUUID(),
            input: { max_retry_count: '0', retry_interval: '2' },
            block: [],
          },
        ],
      };
    case 'stop':
      return { ...base, input: { stop_with_error: 'false', stop_reason: '' } };
  }
}

/** Steps that end a block's body and stay last: its ELSE IF / ELSE branches, a try's catch. */
const TAILS = new Set(['elsif', 'else', 'catch']);

function bodyEnd(block: StepDoc[]): number {
  const i = block.findIndex((s) => TAILS.has(String(s.keyword)));
  return i < 0 ? block.length : i;
}

export type EditProblem = string;

/** Add a step of this kind at the end of the block of the step at `parent` (branches after the body). */
export function addStep(root: StepDoc, parent: StepPath, kind: Addable): EditProblem | null {
  const holder = stepAt(root, parent);
  const block = holder ? blockOf(holder) : null;
  if (!holder || !block) return 'That step holds no steps.';
  if (kind === 'elsif' || kind === 'else') {
    if (holder.keyword !== 'if') return 'ELSE IF and ELSE are added to an IF.';
    if (block.some((s) => s.keyword === 'else')) return 'This IF has its ELSE already.';
    block.push(newStep(kind));
    return null;
  }
  block.splice(bodyEnd(block), 0, newStep(kind));
  return null;
}

function parentOf(root: StepDoc, path: StepPath): { block: StepDoc[]; index: number } | null {
  if (path.length === 0) return null;
  const holder = stepAt(root, path.slice(0, -1));
  const block = holder ? blockOf(holder) : null;
  const index = path[path.length - 1] as number;
  return block && index < block.length ? { block, index } : null;
}

export function deleteStep(root: StepDoc, path: StepPath): EditProblem | null {
  const at = parentOf(root, path);
  if (!at) return 'The trigger cannot be deleted: pick another one instead.';
  const step = at.block[at.index] as StepDoc;
  if (step.keyword === 'while_condition') return "A repeat's condition goes with it: delete the repeat.";
  at.block.splice(at.index, 1);
  return null;
}

/** Move a step up or down among its siblings (branches stay after the body, the body before them). */
export function moveStep(root: StepDoc, path: StepPath, by: -1 | 1): EditProblem | null {
  const at = parentOf(root, path);
  if (!at) return 'The trigger stays first.';
  const to = at.index + by;
  const step = at.block[at.index] as StepDoc;
  const other = at.block[to];
  if (!other) return by < 0 ? 'It is first already.' : 'It is last already.';
  if (TAILS.has(String(step.keyword)) !== TAILS.has(String(other.keyword)) || other.keyword === 'else')
    return 'Branches stay after the steps of their block.';
  if (step.keyword === 'else') return 'ELSE stays last.';
  at.block[to] = step;
  at.block[at.index] = other;
  return null;
}

/** Move a step into the block of the step above it (a control step), after that block's body. */
export function indentStep(root: StepDoc, path: StepPath): EditProblem | null {
  const at = parentOf(root, path);
  if (!at) return 'The trigger cannot move.';
  const step = at.block[at.index] as StepDoc;
  const above = at.block[at.index - 1];
  const target = above ? blockOf(above) : null;
  if (!target || TAILS.has(String(step.keyword)))
    return 'Only a step right after a step holding steps (IF, repeat, try) can move into it.';
  // Into the last branch when the step above ends in one (its ELSE, its catch).
  const last = target[target.length - 1];
  const into = last && TAILS.has(String(last.keyword)) && blockOf(last) ? (blockOf(last) as StepDoc[]) : target;
  at.block.splice(at.index, 1);
  into.splice(bodyEnd(into), 0, step);
  return null;
}

/** Move a step out of its block, to just after the step holding it. */
export function outdentStep(root: StepDoc, path: StepPath): EditProblem | null {
  if (path.length < 2) return 'It is at the top level already.';
  const at = parentOf(root, path);
  const holderAt = parentOf(root, path.slice(0, -1));
  if (!at || !holderAt) return 'It is at the top level already.';
  const step = at.block[at.index] as StepDoc;
  if (TAILS.has(String(step.keyword)) || step.keyword === 'while_condition') return 'A branch stays in its block.';
  at.block.splice(at.index, 1);
  // Out of a branch (ELSE, catch): after the IF or try that holds the branch.
  const holder = holderAt.block[holderAt.index] as StepDoc;
  if (TAILS.has(String(holder.keyword))) {
    const outer = parentOf(root, path.slice(0, -2));
    if (outer) {
      outer.block.splice(outer.index + 1, 0, step);
      return null;
    }
  }
  holderAt.block.splice(holderAt.index + 1, 0, step);
  return null;
}

/** Number the steps in pre-order as the vendor's exports do, giving each a uuid and a name. */
export function renumber(root: StepDoc): void {
  let n = 0;
  const visit = (step: StepDoc): void => {
    step.number = n++;
    if (typeof step.uuid !== 'string' || step.uuid === '') step.uuid = randomUUID();
    for (const child of blockOf(step) ?? []) if (isStep(child)) visit(child);
  };
  visit(root);
}

/** Every step with its path, in pre-order (the order of their numbers). */
export function walk(root: StepDoc): Array<{ step: StepDoc; path: StepPath; depth: number }> {
  const out: Array<{ step: StepDoc; path: StepPath; depth: number }> = [];
  const visit = (step: StepDoc, path: StepPath): void => {
    out.push({ step, path, depth: path.length });
    (blockOf(step) ?? []).forEach((child, i) => {
      if (isStep(child)) visit(child, [...path, i]);
    });
  };
  visit(root, []);
  return out;
}
