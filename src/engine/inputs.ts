// Step input values (contract 20 §5): literals, text mode ("a #{expr} b"), formula mode ("=expr"),
// objects, lists, and array mappings (`____source`). Compiled once per recipe version; evaluated
// for every job against that job's datapills.
import { listKey, type Pill } from '../recipe/datapills.ts';
import { FormulaError } from '../recipe/formula/errors.ts';
import type { FormulaEnv } from '../recipe/formula/env.ts';
import { evaluate, truthy } from '../recipe/formula/interpreter.ts';
import { isKnownMethod } from '../recipe/formula/methods.ts';
import { matchingBrace, parseFormula, type Expr } from '../recipe/formula/parser.ts';
import { FormulaSyntaxError } from '../recipe/formula/lexer.ts';
import { CLEAR, SKIP, fromPlain, hashSet, newHash, toRubyString, type Value } from '../recipe/formula/values.ts';

export type Compiled =
  | { k: 'literal'; v: Value }
  | { k: 'formula'; expr: Expr }
  | { k: 'template'; parts: Array<string | Expr> }
  | { k: 'object'; entries: Array<[string, Compiled]> }
  | { k: 'list'; items: Compiled[] }
  | { k: 'mapping'; source: Compiled; sourceKey: string | null; entries: Array<[string, Compiled]> };

/** Where a compile error sits: the dotted input path, for code_errors. */
export class InputError extends Error {
  override name = 'InputError';
  readonly path: string;
  readonly value: string;
  constructor(message: string, path: string, value: string) {
    super(message);
    this.path = path.length > 200 ? `${path.slice(0, 197)}...` : path;
    this.value = value;
  }
}

export const SOURCE_KEY = '____source';
const MAX_DEPTH = 64;

/** Iteration bindings (foreach passes, array mappings): list key -> current item. */
export interface InputEnv extends FormulaEnv {
  bindings: Map<string, Value>;
}

export function compileInput(raw: unknown, path = '', depth = 0): Compiled {
  if (depth > MAX_DEPTH) throw new InputError('input is nested too deeply', path, '');
  if (typeof raw === 'string') return compileString(raw, path);
  if (Array.isArray(raw))
    return { k: 'list', items: raw.map((item, i) => compileInput(item, `${path}[${i}]`, depth + 1)) };
  if (typeof raw === 'object' && raw !== null) {
    const record = raw as Record<string, unknown>;
    const entries: Array<[string, Compiled]> = Object.keys(record)
      .filter((key) => key !== SOURCE_KEY)
      .map((key) => [key, compileInput(record[key], path ? `${path}.${key}` : key, depth + 1)]);
    if (Object.hasOwn(record, SOURCE_KEY)) {
      const source = compileInput(record[SOURCE_KEY], path ? `${path}.${SOURCE_KEY}` : SOURCE_KEY, depth + 1);
      const pill = singlePill(source);
      return {
        k: 'mapping',
        source,
        sourceKey: pill && pill.type === 'output' ? listKey(pill.line, pill.path) : null,
        entries,
      };
    }
    return { k: 'object', entries };
  }
  return { k: 'literal', v: fromPlain(raw) };
}

function compileString(raw: string, path: string): Compiled {
  try {
    // A field that is only "=" is an empty formula: it gives nothing (nil), as the vendor takes it.
    if (raw.trim() === '=') return { k: 'literal', v: null };
    if (raw.startsWith('=')) {
      const expr = parseFormula(raw.slice(1));
      checkMethods(expr);
      return { k: 'formula', expr };
    }
    if (!raw.includes('#{')) return { k: 'literal', v: raw };
    const parts: Array<string | Expr> = [];
    let i = 0;
    let text = '';
    while (i < raw.length) {
      if (raw[i] === '#' && raw[i + 1] === '{') {
        const end = matchingBrace(raw, i + 1);
        if (end < 0) throw new FormulaSyntaxError('unterminated #{ in text', i);
        if (text) parts.push(text);
        text = '';
        const expr = parseFormula(raw.slice(i + 2, end));
        checkMethods(expr);
        parts.push(expr);
        i = end + 1;
        continue;
      }
      text += raw[i];
      i++;
    }
    if (text) parts.push(text);
    return { k: 'template', parts };
  } catch (error) {
    if (error instanceof FormulaSyntaxError)
      throw new InputError(`formula syntax error: ${error.message}`, path, raw.slice(0, 200));
    throw error;
  }
}

/** Unknown method names are caught when the recipe starts, not when a job reaches them. */
function checkMethods(expr: Expr): void {
  walk(expr, (e) => {
    if (e.k === 'call' && !isKnownMethod(e.name))
      throw new FormulaSyntaxError(`unknown formula method "${e.name}"`, e.at);
  });
}

/** Every sub-expression, depth first. */
export function walk(expr: Expr, visit: (e: Expr) => void): void {
  visit(expr);
  switch (expr.k) {
    case 'array':
      expr.items.forEach((x) => walk(x, visit));
      break;
    case 'hash':
      expr.entries.forEach(([a, b]) => {
        walk(a, visit);
        walk(b, visit);
      });
      break;
    case 'regex':
      expr.parts.forEach((p) => typeof p !== 'string' && walk(p, visit));
      break;
    case 'fn':
      expr.args.forEach((x) => walk(x, visit));
      break;
    case 'call':
    case 'index':
      walk(expr.recv, visit);
      expr.args.forEach((x) => walk(x, visit));
      break;
    case 'not':
    case 'neg':
      walk(expr.arg, visit);
      break;
    case 'bin':
    case 'and':
    case 'or':
      walk(expr.l, visit);
      walk(expr.r, visit);
      break;
    case 'cond':
      walk(expr.c, visit);
      walk(expr.a, visit);
      walk(expr.b, visit);
      break;
    default:
      break;
  }
}

/** Every datapill a compiled input reads. */
export function pillsOf(c: Compiled): Pill[] {
  const out: Pill[] = [];
  const fromExpr = (e: Expr) =>
    walk(e, (x) => {
      if (x.k === 'pill') out.push(x.pill);
    });
  const visit = (v: Compiled): void => {
    switch (v.k) {
      case 'literal':
        return;
      case 'formula':
        fromExpr(v.expr);
        return;
      case 'template':
        v.parts.forEach((p) => typeof p !== 'string' && fromExpr(p));
        return;
      case 'object':
        v.entries.forEach(([, x]) => visit(x));
        return;
      case 'list':
        v.items.forEach(visit);
        return;
      case 'mapping':
        visit(v.source);
        v.entries.forEach(([, x]) => visit(x));
        return;
    }
  };
  visit(c);
  return out;
}

/** The pill when the value is exactly one datapill ("#{_dp(...)}" or "=_dp(...)"). */
export function singlePill(c: Compiled): Pill | null {
  if (c.k === 'template' && c.parts.length === 1 && typeof c.parts[0] !== 'string' && c.parts[0]?.k === 'pill')
    return c.parts[0].pill;
  if (c.k === 'formula' && c.expr.k === 'pill') return c.expr.pill;
  return null;
}

/**
 * The value of a compiled input. A text value that is exactly one hole keeps the hole's type
 * (a list stays a list); otherwise holes are stringified (nil -> ""). `skip` drops the field.
 */
export function evaluateInput(c: Compiled, env: InputEnv): Value {
  switch (c.k) {
    case 'literal':
      return c.v;
    case 'formula':
      return evaluate(c.expr, env);
    case 'template': {
      if (c.parts.length === 1 && typeof c.parts[0] !== 'string') return evaluate(c.parts[0] as Expr, env);
      let out = '';
      for (const part of c.parts) {
        out += typeof part === 'string' ? part : toRubyString(evaluate(part, env));
        if (out.length > env.budget.limits.maxStringLength) throw new FormulaError('text value too long');
      }
      return out;
    }
    case 'object': {
      const out = newHash();
      for (const [key, value] of c.entries) {
        const v = evaluateInput(value, env);
        if (v === SKIP) continue;
        hashSet(out, key, v === CLEAR ? null : v);
      }
      return out;
    }
    case 'list':
      return c.items
        .map((item) => evaluateInput(item, env))
        .filter((v) => v !== SKIP)
        .map((v) => (v === CLEAR ? null : v));
    case 'mapping': {
      const source = evaluateInput(c.source, env);
      if (source === null) return [];
      const items: Value[] = Array.isArray(source) ? source : [source as Value];
      const out: Value[] = [];
      const previous = c.sourceKey === null ? undefined : env.bindings.get(c.sourceKey);
      try {
        for (const item of items) {
          if (c.sourceKey !== null) env.bindings.set(c.sourceKey, item);
          out.push(evaluateInput({ k: 'object', entries: c.entries }, env));
        }
      } finally {
        if (c.sourceKey !== null) {
          if (previous === undefined) env.bindings.delete(c.sourceKey);
          else env.bindings.set(c.sourceKey, previous);
        }
      }
      return out;
    }
  }
}

export { truthy };
