// Evaluates a parsed formula. Pure data in, data out: no eval, no host objects, no I/O except
// what the environment hands in (datapill values, the clock, lookup tables). Every node costs a
// step; a formula that runs past its step budget or deadline, or builds a value past the size
// limits, fails with a FormulaError instead of taking the process down.
import { randomUUID } from 'node:crypto';
import type { Expr } from './parser.ts';
import { callMethod } from './methods.ts';
import { dateOfTime, addDuration } from './dates.ts';
import { regexFrom } from './regex-safety.ts';
import {
  CLEAR,
  RDate,
  RDuration,
  RFloat,
  RTime,
  SKIP,
  hashSet,
  isHash,
  isNumeric,
  newHash,
  numOf,
  typeName,
  compareValues,
  rubyEquals,
  toRubyString,
  checkSize,
  type Hash,
  type Value,
} from './values.ts';
import { localParts } from './zones.ts';
import { FormulaError } from './errors.ts';
import type { FormulaEnv } from './env.ts';

export { FormulaError };

export function truthy(v: Value): boolean {
  return v !== null && v !== false;
}

export function evaluate(e: Expr, env: FormulaEnv): Value {
  env.budget.tick();
  switch (e.k) {
    case 'lit':
      if (e.float && typeof e.v === 'number') return new RFloat(e.v);
      return e.v;
    case 'array': {
      const out = e.items.map((item) => evaluate(item, env));
      checkSize(out, env.budget.limits);
      return out;
    }
    case 'hash': {
      const out = newHash();
      for (const [k, v] of e.entries) hashSet(out, toRubyString(evaluate(k, env)), evaluate(v, env));
      return out;
    }
    case 'regex': {
      const source = e.parts
        .map((p) => (typeof p === 'string' ? p : escapeRegex(toRubyString(evaluate(p, env)))))
        .join('');
      return regexFrom(source, e.flags);
    }
    case 'pill':
      return env.resolvePill(e.pill);
    case 'word':
      switch (e.name) {
        case 'nil':
          return null;
        case 'skip':
          return SKIP;
        case 'clear':
          return CLEAR;
        case 'uuid':
          return randomUUID();
        case 'now':
          return new RTime(env.now(), env.timeZone);
        case 'today': {
          const p = localParts(env.now(), env.timeZone);
          return new RDate(p.y, p.m, p.d);
        }
      }
      break;
    case 'fn': {
      const args = e.args.map((a) => evaluate(a, env));
      if (e.name === 'data_table_lookup') {
        // data_table_lookup('Project', 'Table', 'Column': value): table names are unique per environment, the project only documents.
        const [, table, criteria] = args;
        if (typeof table !== 'string' && typeof table !== 'number')
          throw new FormulaError(
            "data_table_lookup needs a project and a table name, e.g. data_table_lookup('Project', 'Table', 'Column': value)",
          );
        if (!isHash(criteria ?? null) || criteria === undefined)
          throw new FormulaError(
            "data_table_lookup needs criteria, e.g. data_table_lookup('Project', 'Table', 'Column': value)",
          );
        return env.lookup(String(table), criteria as Hash, 'data_table');
      }
      const [table, criteria] = args;
      if (typeof table !== 'string' && typeof table !== 'number')
        throw new FormulaError('lookup needs a table name or id');
      if (!isHash(criteria ?? null) || criteria === undefined)
        throw new FormulaError("lookup needs criteria, e.g. lookup('Table', 'Column': value)");
      return env.lookup(String(table), criteria as Hash);
    }
    case 'call': {
      const recv = evaluate(e.recv, env);
      if (e.safe && recv === null) return null;
      const args = e.args.map((a) => evaluate(a, env));
      const out = callMethod(recv, e.name, args, env);
      checkSize(out, env.budget.limits);
      return out;
    }
    case 'index': {
      const recv = evaluate(e.recv, env);
      const args = e.args.map((a) => evaluate(a, env));
      return callMethod(recv, '[]', args, env);
    }
    case 'not':
      return !truthy(evaluate(e.arg, env));
    case 'neg': {
      const v = evaluate(e.arg, env);
      if (typeof v === 'number') return -v;
      if (v instanceof RFloat) return new RFloat(-v.v);
      if (v instanceof RDuration) return new RDuration(-v.seconds, -v.months);
      throw new FormulaError(`undefined method '-@' for ${typeName(v)}`);
    }
    case 'and': {
      const l = evaluate(e.l, env);
      return truthy(l) ? evaluate(e.r, env) : l;
    }
    case 'or': {
      const l = evaluate(e.l, env);
      return truthy(l) ? l : evaluate(e.r, env);
    }
    case 'cond':
      return truthy(evaluate(e.c, env)) ? evaluate(e.a, env) : evaluate(e.b, env);
    case 'bin': {
      const l = evaluate(e.l, env);
      const r = evaluate(e.r, env);
      const out = binary(e.op, l, r, env);
      checkSize(out, env.budget.limits);
      return out;
    }
  }
  throw new FormulaError('unsupported expression');
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function arith(l: number | RFloat, r: number | RFloat, f: (a: number, b: number) => number): number | RFloat {
  const out = f(numOf(l), numOf(r));
  return l instanceof RFloat || r instanceof RFloat ? new RFloat(out) : out;
}

function binary(op: string, l: Value, r: Value, env: FormulaEnv): Value {
  switch (op) {
    case '==':
      return rubyEquals(l, r);
    case '!=':
      return !rubyEquals(l, r);
    case '>':
      return compareValues(l, r, op) > 0;
    case '<':
      return compareValues(l, r, op) < 0;
    case '>=':
      return compareValues(l, r, op) >= 0;
    case '<=':
      return compareValues(l, r, op) <= 0;
    case '=~': {
      if (l === null) return null;
      const re = r instanceof RegExp ? r : null;
      if (typeof l !== 'string' || !re)
        throw new FormulaError(`=~ needs a string and a regular expression, not ${typeName(l)} and ${typeName(r)}`);
      const index = l.search(re);
      return index < 0 ? null : index;
    }
    case '+':
      if (isNumeric(l) && isNumeric(r)) return arith(l, r, (a, b) => a + b);
      if (typeof l === 'string') {
        if (typeof r !== 'string') throw new FormulaError(`no implicit conversion of ${typeName(r)} into String`);
        if (l.length + r.length > env.budget.limits.maxStringLength) throw new FormulaError('string too long');
        return l + r;
      }
      if (Array.isArray(l)) {
        if (!Array.isArray(r)) throw new FormulaError(`no implicit conversion of ${typeName(r)} into Array`);
        return [...l, ...r];
      }
      if ((l instanceof RTime || l instanceof RDate) && (r instanceof RDuration || isNumeric(r)))
        return addDuration(l, r, 1);
      if (l instanceof RDuration && r instanceof RDuration)
        return new RDuration(l.seconds + r.seconds, l.months + r.months);
      if (l instanceof RDuration && (r instanceof RTime || r instanceof RDate)) return addDuration(r, l, 1);
      break;
    case '-':
      if (isNumeric(l) && isNumeric(r)) return arith(l, r, (a, b) => a - b);
      if (Array.isArray(l) && Array.isArray(r)) return l.filter((x) => !r.some((y) => rubyEquals(x, y)));
      if ((l instanceof RTime || l instanceof RDate) && (r instanceof RDuration || isNumeric(r)))
        return addDuration(l, r, -1);
      if (l instanceof RTime && (r instanceof RTime || r instanceof RDate))
        return new RFloat((l.ms - (r instanceof RTime ? r.ms : r.utcMs)) / 1000);
      if (l instanceof RDate && r instanceof RDate) return Math.round((l.utcMs - r.utcMs) / 86_400_000);
      if (l instanceof RDate && r instanceof RTime) return l.utcMs - dateOfTime(r).utcMs;
      if (l instanceof RDuration && r instanceof RDuration)
        return new RDuration(l.seconds - r.seconds, l.months - r.months);
      break;
    case '*':
      if (isNumeric(l) && isNumeric(r)) return arith(l, r, (a, b) => a * b);
      if (typeof l === 'string' && typeof r === 'number') {
        if (r < 0) throw new FormulaError('negative argument');
        if (l.length * r > env.budget.limits.maxStringLength) throw new FormulaError('string too long');
        return l.repeat(r);
      }
      if (Array.isArray(l) && typeof r === 'number') {
        if (r < 0) throw new FormulaError('negative argument');
        if (l.length * r > env.budget.limits.maxListLength) throw new FormulaError('list too long');
        const out: Value[] = [];
        for (let i = 0; i < r; i++) out.push(...l);
        return out;
      }
      if (Array.isArray(l) && typeof r === 'string') return l.map(toRubyString).join(r);
      if (l instanceof RDuration && isNumeric(r)) return new RDuration(l.seconds * numOf(r), l.months * numOf(r));
      break;
    case '/':
      if (isNumeric(l) && isNumeric(r)) {
        if (typeof l === 'number' && typeof r === 'number') {
          if (r === 0) throw new FormulaError('divided by 0');
          return Math.floor(l / r);
        }
        return arith(l, r, (a, b) => a / b);
      }
      break;
    case '%':
      if (isNumeric(l) && isNumeric(r)) {
        if (typeof l === 'number' && typeof r === 'number' && r === 0) throw new FormulaError('divided by 0');
        return arith(l, r, (a, b) => a - b * Math.floor(a / b));
      }
      break;
    case '**':
      if (isNumeric(l) && isNumeric(r)) {
        const out = Math.pow(numOf(l), numOf(r));
        if (
          !Number.isFinite(out) ||
          (Math.abs(out) > Number.MAX_SAFE_INTEGER && typeof l === 'number' && typeof r === 'number')
        ) {
          if (!Number.isFinite(out)) throw new FormulaError('number too large');
        }
        return l instanceof RFloat || r instanceof RFloat || numOf(r) < 0 ? new RFloat(out) : out;
      }
      break;
  }
  if (l === null || r === null) throw new FormulaError(`undefined method '${op}' for nil`);
  throw new FormulaError(`${typeName(l)} ${op} ${typeName(r)} is not supported`);
}
