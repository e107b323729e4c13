// workato_template (Message templates): `create_document` renders a Mustache template with the
// step's `template_input` into the text `document`. Mustache is logic-less: tags, sections over
// lists and objects, inverted sections, comments; no code of any kind runs (docs/adr/0017).
// The library parses; the rendering walks its tokens here, with bounds on work, depth and size,
// because nested sections over lists multiply (a 100-item list under a 100-item list is 10,000
// passes) and a renderer without a budget could be made to allocate without end.
import { resolveTemplate } from '../../api/message_templates/message_templates.service.ts';
import Mustache from 'mustache';
import { StepError, type Connector } from './types.ts';
import { hashGet, isHash, newHash, toPlain, toRubyString, type Value } from '../../recipe/formula/values.ts';

export const TEMPLATE_LIMITS = {
  /** Characters of a template. */
  templateChars: 100_000,
  /** Characters of a rendered document. */
  documentChars: 5_000_000,
  /** Tokens visited while rendering (every pass of a section visits its tokens again). */
  steps: 1_000_000,
  /** Sections inside sections. */
  depth: 50,
};

type Token = [string, string, number, number, Token[]?, number?];
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

class Budget {
  steps = 0;
  chars = 0;
  spend(chars: number): void {
    this.chars += chars;
    if (++this.steps > TEMPLATE_LIMITS.steps)
      throw new StepError('Template error', `the template took more than ${TEMPLATE_LIMITS.steps} rendering steps`);
    if (this.chars > TEMPLATE_LIMITS.documentChars)
      throw new StepError(
        'Template error',
        `the document would be longer than ${TEMPLATE_LIMITS.documentChars} characters`,
      );
  }
}

function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A name in the context stack: innermost first; `a.b.c` walks from where `a` is found; `.` is the current value. */
function lookup(stack: Json[], name: string): Json | undefined {
  if (name === '.') return stack[stack.length - 1];
  const [first, ...rest] = name.split('.');
  for (let i = stack.length - 1; i >= 0; i--) {
    const frame = stack[i];
    if (isObject(frame) && Object.hasOwn(frame, first as string)) {
      let v: Json | undefined = frame[first as string];
      for (const key of rest) v = isObject(v) && Object.hasOwn(v, key) ? v[key] : undefined;
      return v;
    }
  }
  return undefined;
}

function text(v: Json | undefined): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function falsy(v: Json | undefined): boolean {
  return v === undefined || v === null || v === false || v === '' || (Array.isArray(v) && v.length === 0);
}

function render(tokens: Token[], stack: Json[], budget: Budget, depth: number, out: string[]): void {
  if (depth > TEMPLATE_LIMITS.depth)
    throw new StepError('Template error', `sections are nested more than ${TEMPLATE_LIMITS.depth} deep`);
  for (const token of tokens) {
    const [type, value] = token;
    let piece = '';
    switch (type) {
      case 'text':
        piece = value;
        break;
      case 'name':
        piece = Mustache.escape(text(lookup(stack, value)));
        break;
      case '&':
      case '{':
        piece = text(lookup(stack, value));
        break;
      case '#': {
        budget.spend(0);
        const v = lookup(stack, value);
        if (falsy(v)) break;
        const inner = token[4] ?? [];
        if (Array.isArray(v)) for (const item of v) render(inner, [...stack, item], budget, depth + 1, out);
        else render(inner, [...stack, v as Json], budget, depth + 1, out);
        break;
      }
      case '^':
        budget.spend(0);
        if (falsy(lookup(stack, value))) render(token[4] ?? [], stack, budget, depth + 1, out);
        break;
      // Comments; partials name other stored templates, which steps cannot reach: they render nothing.
      default:
        break;
    }
    budget.spend(piece.length);
    if (piece !== '') out.push(piece);
  }
}

/** Render a Mustache template with JSON data, within TEMPLATE_LIMITS. */
export function renderTemplate(template: string, data: Json): string {
  if (template.length > TEMPLATE_LIMITS.templateChars)
    throw new StepError('Template error', `the template is longer than ${TEMPLATE_LIMITS.templateChars} characters`);
  let tokens: Token[];
  try {
    // A writer of its own: Mustache.parse keeps every template it parsed in a cache of the module,
    // shared by every job and never emptied; a writer's cache goes with it.
    tokens = new Mustache.Writer().parse(template) as Token[];
  } catch (error) {
    throw new StepError(
      'Template error',
      error instanceof Error ? error.message.slice(0, 300) : 'the template cannot be parsed',
    );
  }
  const out: string[] = [];
  render(tokens, [data], new Budget(), 0, out);
  return out.join('');
}

export const workatoTemplate: Connector = {
  provider: 'workato_template',
  title: 'Message template by Workato',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions: {
    create_document: {
      title: 'Create message',
      async run(input, sc) {
        let body: Value = hashGet(input, 'template');
        if (body === null || toRubyString(body) === '') {
          // A stored template of the recipe's environment, named by id, name or an export reference {name}.
          const id = hashGet(input, 'template_id');
          if (id === null || toRubyString(isHash(id) ? (hashGet(id, 'name') ?? '') : id).trim() === '')
            throw new StepError(
              'Bad request',
              'give the template body in template, or name a stored one in template_id',
            );
          const stored = await resolveTemplate(sc.ctx.db, sc.recipe.environmentId, toPlain(id));
          if (!stored)
            throw new StepError(
              'Not found',
              `no message template ${JSON.stringify(toPlain(isHash(id) ? hashGet(id, 'name') : id)).slice(0, 80)} in this environment`,
            );
          body = stored.body;
        }
        const data = hashGet(input, 'template_input');
        const view = isHash(data ?? null) ? (toPlain(data as Value) as Json) : {};
        return newHash([['document', renderTemplate(toRubyString(body), view)]]);
      },
    },
  },
};
