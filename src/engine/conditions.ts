// Conditions of if/elsif, while_condition and trigger filters (contract 20 §4): the 14 operands,
// their aliases, and/or groups (nested groups accepted).
import { compileInput, evaluateInput, InputError, type Compiled, type InputEnv } from './inputs.ts';
import { FormulaError } from '../recipe/formula/errors.ts';
import {
  isHash,
  isNumeric,
  numOf,
  compareValues,
  isTrue,
  rubyEquals,
  toRubyString,
  type Value,
} from '../recipe/formula/values.ts';

export const OPERANDS = [
  'contains',
  'not_contains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'equals_to',
  'not_equals_to',
  'greater_than',
  'less_than',
  'is_true',
  'is_not_true',
  'present',
  'blank',
] as const;
export type Operand = (typeof OPERANDS)[number];

/** Hand-written and legacy spellings accepted for the canonical operands (20 §4.2). */
const ALIASES: Record<string, Operand> = {
  equals: 'equals_to',
  eq: 'equals_to',
  not_equals: 'not_equals_to',
  not_eq: 'not_equals_to',
  gt: 'greater_than',
  lt: 'less_than',
  is_present: 'present',
  not_present: 'blank',
  is_not_present: 'blank',
  is_blank: 'blank',
};

export type CompiledCondition =
  | { k: 'group'; op: 'and' | 'or'; items: CompiledCondition[] }
  | { k: 'test'; operand: Operand; lhs: Compiled; rhs: Compiled };

export function compileCondition(raw: unknown, path: string, depth = 0): CompiledCondition {
  if (depth > 20) throw new InputError('conditions are nested too deeply', path, '');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new InputError('condition must be an object', path, '');
  const c = raw as Record<string, unknown>;
  if (Array.isArray(c.conditions) || c.type === 'compound') {
    const op = c.operand === 'or' ? 'or' : 'and';
    if (c.operand !== undefined && c.operand !== 'and' && c.operand !== 'or')
      throw new InputError(`group operand must be "and" or "or"`, `${path}.operand`, String(c.operand).slice(0, 40));
    const items = Array.isArray(c.conditions) ? c.conditions : [];
    return {
      k: 'group',
      op,
      items: items.map((item, i) => compileCondition(item, `${path}.conditions[${i}]`, depth + 1)),
    };
  }
  const name = typeof c.operand === 'string' ? c.operand : '';
  const operand = (OPERANDS as readonly string[]).includes(name) ? (name as Operand) : ALIASES[name];
  if (operand === undefined)
    throw new InputError(`unknown condition operand "${name.slice(0, 40)}"`, `${path}.operand`, name.slice(0, 40));
  return {
    k: 'test',
    operand,
    lhs: compileInput(c.lhs ?? '', `${path}.lhs`),
    rhs: compileInput(c.rhs ?? '', `${path}.rhs`),
  };
}

function present(v: Value): boolean {
  if (v === null || v === false) return false;
  if (typeof v === 'string') return v.trim() !== '';
  if (Array.isArray(v)) return v.length > 0;
  if (isHash(v)) return Object.keys(v).length > 0;
  return true;
}

const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

function asNumber(v: Value): number | null {
  if (isNumeric(v)) return numOf(v);
  if (typeof v === 'string' && NUMERIC.test(v)) return Number(v);
  return null;
}

function contains(l: Value, r: Value): boolean {
  if (l === null || l === '') return false;
  if (Array.isArray(l))
    return l.some(
      (item) => rubyEquals(item, r) || (typeof item !== 'string' && typeof r === 'string' && toRubyString(item) === r),
    );
  return toRubyString(l).includes(toRubyString(r));
}

function equals(l: Value, r: Value): boolean {
  const a = asNumber(l);
  const b = asNumber(r);
  if (a !== null && b !== null) return a === b;
  if (typeof l === 'boolean' || typeof r === 'boolean') return toRubyString(l) === toRubyString(r);
  if (rubyEquals(l, r)) return true;
  return (l === null ? '' : toRubyString(l)) === (r === null ? '' : toRubyString(r));
}

function order(l: Value, r: Value, name: string): number {
  if (l === null || r === null)
    throw new FormulaError(`${name}: a side of the comparison is empty (combine with "is present")`);
  const a = asNumber(l);
  const b = asNumber(r);
  if (a !== null && b !== null) return Math.sign(a - b);
  if (typeof l === 'string' || typeof r === 'string') return compareValues(toRubyString(l), toRubyString(r));
  return compareValues(l, r);
}

export function testCondition(c: CompiledCondition, env: InputEnv): boolean {
  if (c.k === 'group') {
    if (c.items.length === 0) return true;
    return c.op === 'and'
      ? c.items.every((item) => testCondition(item, env))
      : c.items.some((item) => testCondition(item, env));
  }
  const l = evaluateInput(c.lhs, env);
  const r = () => evaluateInput(c.rhs, env);
  switch (c.operand) {
    case 'contains':
      return contains(l, r());
    case 'not_contains':
      return !contains(l, r());
    case 'starts_with':
      return l !== null && toRubyString(l).startsWith(toRubyString(r()));
    case 'not_starts_with':
      return !(l !== null && toRubyString(l).startsWith(toRubyString(r())));
    case 'ends_with':
      return l !== null && toRubyString(l).endsWith(toRubyString(r()));
    case 'not_ends_with':
      return !(l !== null && toRubyString(l).endsWith(toRubyString(r())));
    case 'equals_to':
      return equals(l, r());
    case 'not_equals_to':
      return !equals(l, r());
    case 'greater_than':
      return order(l, r(), 'greater than') > 0;
    case 'less_than':
      return order(l, r(), 'less than') < 0;
    case 'is_true':
      return isTrue(l);
    case 'is_not_true':
      return !isTrue(l);
    case 'present':
      return present(l);
    case 'blank':
      return !present(l);
  }
}
