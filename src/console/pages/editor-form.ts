// The recipe editor's form read back into the draft: the fields of each step (named by the step's
// path), the connections, then the one change the pressed button names. Anything unreadable is a
// problem said in words, and the draft is drawn again unchanged by it.
import {
  ADDABLE,
  addStep,
  blockOf,
  deleteStep,
  indentStep,
  isStep,
  moveStep,
  newCondition,
  outdentStep,
  parseCode,
  parsePath,
  renumber,
  stepAt,
  walk,
  type Addable,
  type StepDoc,
} from './editor-model.ts';
import { FIELD_KEY, schemaPaths } from './editor.ts';

/** The draft's step tree and config from their JSON text; null when the code is not an editable tree. */
export function draftOf(code: string, config: string): { root: StepDoc; config: unknown[] } | null {
  const root = parseCode(code);
  if (!root) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(config || '[]');
  } catch {
    parsed = [];
  }
  return { root, config: Array.isArray(parsed) ? parsed : [] };
}

/** The providers the draft's steps name, in step order. */
export function providersOf(root: StepDoc): string[] {
  return walk(root)
    .map(({ step }) => step.provider)
    .filter((p): p is string => typeof p === 'string' && p !== '');
}

function inputOf(step: StepDoc): Record<string, unknown> {
  if (!isStep(step.input)) step.input = {};
  return step.input as Record<string, unknown>;
}

/** Split `kind:<path>:<rest>`; the path is dotted numbers. */
function keyParts(key: string): { kind: string; path: string; rest: string } | null {
  const first = key.indexOf(':');
  if (first < 0) return null;
  const second = key.indexOf(':', first + 1);
  return {
    kind: key.slice(0, first),
    path: second < 0 ? key.slice(first + 1) : key.slice(first + 1, second),
    rest: second < 0 ? '' : key.slice(second + 1),
  };
}

/**
 * The webhook trigger's payload fields set into its output schema: only the `payload` entry is
 * replaced (other entries, and a schema the person did not change, are kept as they are).
 */
function setPayloadFields(step: StepDoc, typed: string): void {
  const names = [
    ...new Set(
      typed
        .split(',')
        .map((n) => n.trim())
        .filter((n) => FIELD_KEY.test(n)),
    ),
  ].slice(0, 200);
  const schema = Array.isArray(step.extended_output_schema) ? (step.extended_output_schema as unknown[]) : [];
  const at = schema.findIndex((f) => isStep(f) && f.name === 'payload');
  const current =
    at < 0
      ? []
      : schemaPaths([schema[at]], [])
          .filter((p) => p.length === 2)
          .map((p) => p[1]);
  if (names.join(',') === current.join(',')) return;
  const payload = {
    name: 'payload',
    label: 'Payload',
    type: 'object',
    properties: names.map((name) => ({ name, label: name })),
  };
  const next = [...schema];
  if (at < 0) next.push(payload);
  else if (names.length === 0) next.splice(at, 1);
  else next[at] = payload;
  step.extended_output_schema = next;
}

/**
 * A field in formula mode as the recipe keeps it: `=` and the expression (a leading `=` typed by
 * habit is not doubled). A field switched from text that held exactly one datapill keeps it, as
 * the formula's expression.
 */
export function asFormula(typed: string, before: unknown): string {
  const expression = typed.startsWith('=') ? typed.slice(1) : typed;
  const wasText = typeof before !== 'string' || !before.startsWith('=');
  const single = /^#\{(_dp\('[^']*'\))\}$/.exec(expression.trim());
  return `=${wasText && single ? single[1] : expression}`;
}

/** Apply the form's fields to the draft. A step given as JSON replaces that step (its inner steps kept). */
function applyFields(root: StepDoc, config: unknown[], body: Record<string, string>): string | null {
  const keys = Object.keys(body);
  // Steps edited as JSON first: the fields below address the steps they hold.
  for (const key of keys.filter((k) => k.startsWith('json:'))) {
    const path = parsePath(key.slice(5));
    const step = path ? stepAt(root, path) : undefined;
    if (!step) continue;
    let replacement: unknown;
    try {
      replacement = JSON.parse(body[key] as string);
    } catch {
      return `Step ${String(step.number)}: its JSON does not parse. Correct it and try again.`;
    }
    if (!isStep(replacement)) return `Step ${String(step.number)}: its JSON must be an object.`;
    const block = blockOf(step);
    for (const k of Object.keys(step)) delete step[k];
    Object.assign(step, replacement, block ? { block } : {});
  }
  for (const key of keys) {
    const parts = keyParts(key);
    if (!parts) continue;
    const path = parsePath(parts.path);
    const step = path ? stepAt(root, path) : undefined;
    if (!step) continue;
    const value = body[key] as string;
    switch (parts.kind) {
      case 'f':
        if (FIELD_KEY.test(parts.rest)) {
          const input = inputOf(step);
          input[parts.rest] =
            body[`fm:${parts.path}:${parts.rest}`] === '1' ? asFormula(value, input[parts.rest]) : value;
        }
        break;
      case 'fj':
        if (!FIELD_KEY.test(parts.rest)) break;
        try {
          inputOf(step)[parts.rest] = JSON.parse(value);
        } catch {
          return `Step ${String(step.number)}: ${parts.rest} is not JSON. Correct it and try again.`;
        }
        break;
      case 'fadd': {
        const name = value.trim();
        if (name === '') break;
        if (!FIELD_KEY.test(name)) return `“${name}” cannot be a field name: letters, digits and _ only.`;
        const input = inputOf(step);
        if (!(name in input)) input[name] = '';
        break;
      }
      case 'c': {
        const [index, part] = parts.rest.split(':');
        const conditions = (inputOf(step).conditions ?? []) as unknown[];
        const condition = Array.isArray(conditions) ? conditions[Number(index)] : undefined;
        if (isStep(condition) && (part === 'lhs' || part === 'rhs' || part === 'operand')) condition[part] = value;
        break;
      }
      case 'src':
        step.source = value;
        break;
      case 'schema':
        setPayloadFields(step, value);
        break;
    }
  }
  for (const key of keys.filter((k) => k.startsWith('conn:'))) {
    const provider = key.slice(5);
    const value = body[key] as string;
    const entry = config.find((e) => isStep(e) && e.provider === provider) as Record<string, unknown> | undefined;
    const accountId = /^\d{1,15}$/.test(value) ? Number(value) : null;
    if (entry) entry.account_id = accountId;
    else config.push({ keyword: 'application', provider, skip_validation: false, account_id: accountId });
  }
  return null;
}

/** Pick the connector, then the operation, of a trigger or action step. */
function choose(step: StepDoc, provider: string, operation: string): void {
  if (provider !== '' && provider !== step.provider) {
    step.provider = provider;
    step.name = '';
    step.input = {};
    delete step.extended_output_schema;
    return;
  }
  if (operation !== '' && operation !== step.name) {
    step.name = operation;
    step.input = {};
  }
}

/** The form's fields, then the change its button names; renumbered. Returns the problem, if any. */
export function applyEdit(root: StepDoc, config: unknown[], body: Record<string, string>): { problem?: string } {
  const fieldProblem = applyFields(root, config, body);
  if (fieldProblem) return { problem: fieldProblem };
  const op = body.op ?? 'check';
  const [verb, pathText, kind] = op.split(':');
  const path = pathText === undefined ? null : parsePath(pathText);
  let problem: string | null = null;
  if (verb !== 'check' && verb !== 'save') {
    if (!path) return { problem: 'That button names no step.' };
    const step = stepAt(root, path);
    if (!step) return { problem: 'That step is not in the recipe any more.' };
    switch (verb) {
      case 'add':
        problem = ADDABLE.includes(kind as Addable) ? addStep(root, path, kind as Addable) : 'No such kind of step.';
        break;
      case 'delete':
        problem = deleteStep(root, path);
        break;
      case 'up':
      case 'down':
        problem = moveStep(root, path, verb === 'up' ? -1 : 1);
        break;
      case 'indent':
        problem = indentStep(root, path);
        break;
      case 'outdent':
        problem = outdentStep(root, path);
        break;
      case 'choose':
        choose(step, body[`pick:${pathText}`] ?? '', body[`pickop:${pathText}`] ?? '');
        break;
      case 'pickapp':
        if (step.keyword !== 'trigger' && step.keyword !== 'action')
          problem = 'Only a trigger or an action has an application.';
        else choose(step, kind ?? '', '');
        break;
      case 'apps':
      case 'findapp':
        // Nothing changes: the page comes back with this step's whole catalog (searched).
        if (step.keyword !== 'trigger' && step.keyword !== 'action')
          problem = 'Only a trigger or an action has an application.';
        break;
      case 'addcond': {
        const input = inputOf(step);
        if (Array.isArray(input.conditions) && input.conditions.length < 20) input.conditions.push(newCondition());
        break;
      }
      default:
        problem = 'That button does nothing here.';
    }
  }
  renumber(root);
  return problem ? { problem } : {};
}
