// Regular expressions in formulas. A native regex cannot be interrupted, so the step budget cannot
// stop one that backtracks without bound: patterns that could (a quantified group containing
// another unbounded quantifier, backreferences) are refused, and a regex runs only on strings of
// bounded length. A heuristic: it stops the classic catastrophic patterns, not every slow one.
import { FormulaError } from './errors.ts';

const MAX_REGEX_SUBJECT = 100_000;

const regexCache = new Map<string, RegExp>();

/**
 * A regular expression from formula source. Patterns that can backtrack without bound (a
 * quantified group containing another unbounded quantifier, backreferences) are refused: a
 * native regex cannot be interrupted, so the budget could not stop it.
 */
export function regexFrom(source: string, rubyFlags: string, global = false): RegExp {
  const key = `${rubyFlags}${global ? 'g' : ''}/${source}`;
  const cached = regexCache.get(key);
  if (cached) {
    cached.lastIndex = 0;
    return cached;
  }
  if (source.length > 1000) throw new FormulaError('regular expression is longer than 1000 characters');
  let body = source;
  if (rubyFlags.includes('x'))
    body = body
      .replace(/\\#/g, '\u0000')
      .replace(/#[^\n]*/g, '')
      .replace(/\s+/g, '')
      .replace(/\u0000/g, '\\#');
  body = body
    .replace(/\\A/g, '^')
    .replace(/\\[zZ]/g, '$')
    .replace(/\\h/g, '[0-9a-fA-F]');
  if (/\\[1-9]|\\k</.test(body)) throw new FormulaError('backreferences are not supported in regular expressions');
  if (hasNestedQuantifier(body))
    throw new FormulaError('regular expression has a nested repetition (e.g. (a+)+) that could run without bound');
  let flags = rubyFlags.includes('i') ? 'i' : '';
  if (rubyFlags.includes('m')) flags += 's';
  if (global) flags += 'g';
  let re: RegExp;
  try {
    re = new RegExp(body, flags);
  } catch (error) {
    throw new FormulaError(`invalid regular expression: ${(error as Error).message}`);
  }
  if (regexCache.size > 1000) regexCache.clear();
  regexCache.set(key, re);
  return re;
}

function hasNestedQuantifier(body: string): boolean {
  // stack of "does this group contain an unbounded quantifier"
  const stack: boolean[] = [false];
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    if (c === '(') {
      stack.push(false);
      continue;
    }
    const unbounded = c === '*' || c === '+' || (c === '{' && /^\{\d*,\}/.test(body.slice(i)));
    if (c === ')') {
      const inner = stack.pop() ?? false;
      const next = body[i + 1];
      const quantified = next === '*' || next === '+' || (next === '{' && /^\{\d*,\d*\}/.test(body.slice(i + 1)));
      if (inner && quantified) return true;
      if (inner || quantified) stack[stack.length - 1] = true;
      continue;
    }
    if (unbounded) stack[stack.length - 1] = true;
  }
  return false;
}

export function regexSubject(s: string): string {
  if (s.length > MAX_REGEX_SUBJECT)
    throw new FormulaError(`regular expressions run on strings of at most ${MAX_REGEX_SUBJECT} characters`);
  return s;
}
