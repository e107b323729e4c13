// A recipe step in the words a person reads: "Search records in Salesforce", "IF total > 1000",
// "Repeat for each item in records", "Log message". One function for the recipe page, the job
// page, the editor and the test-case form; the connector catalog gives the titles. A step whose
// connector or operation this server does not know reads as its ids (`provider · name`).

/** Titles of connectors and their operations (the catalog's, or the editor's own view of it). */
export interface StepWords {
  connector(provider: string): string | undefined;
  operation(provider: string, keyword: 'trigger' | 'action', name: string): string | undefined;
}

interface TitledConnector {
  title: string;
  triggers: Readonly<Record<string, { title: string }>>;
  actions: Readonly<Record<string, { title: string }>>;
}

/** StepWords over a lookup of connectors (the catalog's `find`, or a map's `get`). */
export function wordsOf(find: (provider: string) => TitledConnector | undefined): StepWords {
  return {
    connector: (provider) => find(provider)?.title,
    operation: (provider, keyword, name) => {
      const c = find(provider);
      const ops = keyword === 'trigger' ? c?.triggers : c?.actions;
      return ops && Object.hasOwn(ops, name) ? ops[name]?.title : undefined;
    },
  };
}

/** Built-in connectors whose operations the vendor names without the application. */
const BARE = new Set(['logger', 'workato_variable', 'utility']);

/** Operations the vendor names in its own words rather than the connector's title. */
const VENDOR_WORDS: Readonly<Record<string, string>> = {
  'rest:make_request': 'Call HTTP endpoint',
  'rest:make_request_v2': 'Call HTTP endpoint',
  'http:make_request': 'Call HTTP endpoint',
  'http:make_request_v2': 'Call HTTP endpoint',
  'workato_webhooks:new_event': 'New event via webhook',
};

const OPERATORS: Readonly<Record<string, string>> = {
  equals_to: '=',
  not_equals_to: '≠',
  greater_than: '>',
  less_than: '<',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  not_starts_with: 'does not start with',
  ends_with: 'ends with',
  not_ends_with: 'does not end with',
  is_true: 'is true',
  is_not_true: 'is not true',
  present: 'is present',
  blank: 'is blank',
};
const UNARY = new Set(['is_true', 'is_not_true', 'present', 'blank']);

const PILL = /#\{_dp\('(.*?)'\)\}|_dp\('(.*?)'\)/g;

/** Datapills as their readable label (the field they name: `total`), the rest as written. */
export function readable(text: unknown): string {
  if (text === undefined || text === null) return '';
  const source = typeof text === 'string' ? text : JSON.stringify(text);
  const shown = source.replace(PILL, (whole, wrapped: string | undefined, bare: string | undefined) => {
    try {
      const pill = JSON.parse(wrapped ?? bare ?? '') as { path?: unknown; line?: unknown };
      const path = Array.isArray(pill.path) ? pill.path.filter((p) => typeof p === 'string') : [];
      return path.at(-1) ?? String(pill.line ?? whole);
    } catch {
      return whole;
    }
  });
  // A formula (`=…`) reads as its expression.
  return (shown.startsWith('=') ? shown.slice(1) : shown).trim();
}

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The conditions of an IF / ELSE IF / While step: `total > 1000 and status = open`. */
export function conditionText(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const { conditions, operand } = input as { conditions?: unknown; operand?: unknown };
  if (!Array.isArray(conditions)) return '';
  const join = operand === 'or' ? ' or ' : ' and ';
  const filled = conditions.filter(
    (c) => typeof c === 'object' && c !== null && readable((c as { lhs?: unknown }).lhs) !== '',
  );
  const parts = filled.slice(0, 10).map((c) => {
    const { lhs, operand: op, rhs } = c as { lhs?: unknown; operand?: unknown; rhs?: unknown };
    const operator = typeof op === 'string' ? (OPERATORS[op] ?? op.replaceAll('_', ' ')) : '?';
    const left = readable(lhs);
    if (typeof op === 'string' && UNARY.has(op)) return `${left} ${operator}`;
    return `${left} ${operator} ${readable(rhs) || '""'}`;
  });
  return clip(`${parts.join(join)}${filled.length > 10 ? join + '…' : ''}`);
}

export interface StepLike {
  keyword?: unknown;
  provider?: unknown;
  name?: unknown;
  input?: unknown;
  source?: unknown;
}

/** What an action or a trigger does: "Search records in Salesforce"; the ids when unknown. */
export function operationText(provider: string, keyword: 'trigger' | 'action', name: string, words: StepWords): string {
  const own = VENDOR_WORDS[`${provider}:${name}`];
  if (own) return own;
  const title = words.operation(provider, keyword, name);
  const connector = words.connector(provider);
  if (title === undefined || connector === undefined) return name === '' ? provider : `${provider} · ${name}`;
  const op = `${title.charAt(0).toUpperCase()}${title.slice(1)}`;
  if (BARE.has(provider) || title.toLowerCase().includes(connector.toLowerCase())) return op;
  return `${op} in ${connector}`;
}

/** A step as a person reads it, from the recipe's JSON. */
export function describeStep(step: StepLike, words: StepWords): string {
  const keyword = typeof step.keyword === 'string' ? step.keyword : 'action';
  const input = typeof step.input === 'object' && step.input !== null ? (step.input as Record<string, unknown>) : {};
  switch (keyword) {
    case 'trigger':
    case 'action': {
      const provider = typeof step.provider === 'string' ? step.provider : '';
      if (provider === '') return keyword === 'trigger' ? 'Trigger' : 'Action';
      return operationText(provider, keyword, typeof step.name === 'string' ? step.name : '', words);
    }
    case 'if':
    case 'elsif': {
      const cond = conditionText(step.input);
      return `${keyword === 'if' ? 'IF' : 'ELSE IF'}${cond ? ` ${cond}` : ''}`;
    }
    case 'else':
      return 'ELSE';
    case 'while_condition':
    case 'repeat': {
      const cond = conditionText(step.input);
      return keyword === 'repeat' ? `Repeat while${cond ? ` ${cond}` : ''}` : `While${cond ? ` ${cond}` : ''}`;
    }
    case 'foreach': {
      const source = readable(step.source ?? input.source);
      return `Repeat for each item in ${source ? clip(source, 80) : 'a list'}`;
    }
    case 'try':
      return 'Try';
    case 'catch':
      return 'On error';
    case 'stop':
      return input.stop_with_error === true || input.stop_with_error === 'true' ? 'Stop job with an error' : 'Stop job';
    default:
      return keyword;
  }
}
