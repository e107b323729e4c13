// A formula checked as a recipe's start checks it (syntax, method names), for the console's
// formula mode while a person types; one that reads no datapill and no table is also evaluated,
// within a small budget, so the person sees what it gives.
import { PillError } from '../datapills.ts';
import { Budget, type FormulaEnv } from './env.ts';
import { FormulaError } from './errors.ts';
import { evaluate } from './interpreter.ts';
import { FormulaSyntaxError } from './lexer.ts';
import { isKnownMethod } from './methods.ts';
import { childrenOf, parseFormula, type Expr } from './parser.ts';
import { toPlain, toRubyString } from './values.ts';

export type FormulaCheck = { ok: true; value?: string } | { ok: false; message: string; position?: number | undefined };

const PREVIEW_LIMITS = { maxSteps: 10_000, maxMillis: 50, maxStringLength: 100_000, maxListLength: 10_000 };
const PREVIEW_CHARS = 200;

/** Every sub-expression, without recursion (a formula's tree may be 500 deep). */
function* nodesOf(root: Expr): Generator<Expr> {
  const pending = [root];
  for (let e = pending.pop(); e !== undefined; e = pending.pop()) {
    yield e;
    pending.push(...childrenOf(e));
  }
}

/** The zone of `now` and `today` in a job (the engine's default, src/engine/connectors/clock.ts). */
const JOB_TIME_ZONE = 'America/Los_Angeles';

/** `source` is the formula without its leading `=`; `now` is the clock (milliseconds). */
export function checkFormula(source: string, now: () => number, timeZone = JOB_TIME_ZONE): FormulaCheck {
  let expr: Expr;
  try {
    expr = parseFormula(source);
    for (const e of nodesOf(expr))
      if (e.k === 'call' && !isKnownMethod(e.name))
        throw new FormulaSyntaxError(`unknown formula method "${e.name}"`, e.at);
  } catch (error) {
    if (error instanceof FormulaSyntaxError) return { ok: false, message: error.message, position: error.position };
    if (error instanceof PillError) return { ok: false, message: error.message };
    throw error;
  }
  for (const e of nodesOf(expr)) if (e.k === 'pill' || e.k === 'fn') return { ok: true };
  const env: FormulaEnv = {
    resolvePill: () => null,
    lookup: () => null,
    now,
    timeZone,
    budget: new Budget(PREVIEW_LIMITS),
  };
  try {
    const value = evaluate(expr, env);
    const text = typeof value === 'string' ? JSON.stringify(value) : safeText(value);
    return { ok: true, value: text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text };
  } catch (error) {
    // What a job would fail with at this step (a method on the wrong type, the budget spent).
    if (error instanceof FormulaError || error instanceof RangeError || error instanceof TypeError)
      return { ok: false, message: error.message };
    throw error;
  }
}

function safeText(value: Parameters<typeof toRubyString>[0]): string {
  const plain = toPlain(value);
  if (plain === null) return 'nil';
  return typeof plain === 'object' ? JSON.stringify(plain) : toRubyString(value);
}
