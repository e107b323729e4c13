// The formula language (contract 20 §8.1): a Ruby-like expression subset with its own lexer and
// recursive-descent parser. No blocks, no assignment, no statements: one expression.
import { PillError, parseStructuredPill, translateLegacyPill, type Pill } from '../datapills.ts';
import { FormulaSyntaxError, type Token, lex } from './lexer.ts';

export type Expr =
  | { k: 'lit'; v: null | boolean | number | string; float?: boolean }
  | { k: 'array'; items: Expr[] }
  | { k: 'hash'; entries: Array<[Expr, Expr]> }
  | { k: 'regex'; parts: Array<string | Expr>; flags: string }
  | { k: 'pill'; pill: Pill }
  | { k: 'word'; name: 'now' | 'today' | 'nil' | 'skip' | 'clear' | 'uuid' }
  | { k: 'fn'; name: 'lookup' | 'data_table_lookup'; args: Expr[] }
  | { k: 'call'; recv: Expr; name: string; args: Expr[]; safe: boolean; at: number }
  | { k: 'index'; recv: Expr; args: Expr[] }
  | { k: 'not'; arg: Expr }
  | { k: 'neg'; arg: Expr }
  | { k: 'bin'; op: BinaryOp; l: Expr; r: Expr; at: number }
  | { k: 'and' | 'or'; l: Expr; r: Expr }
  | { k: 'cond'; c: Expr; a: Expr; b: Expr };

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '**' | '==' | '!=' | '>' | '<' | '>=' | '<=' | '=~';
const MAX_LENGTH = 100_000;
const MAX_DEPTH = 100;
/**
 * Deepest tree a formula may build. Operator and method chains (`1+1+…`, `a.b.c…`) grow the tree
 * without nesting the source, and every walk over the tree (evaluation, datapill checks) recurses.
 */
export const MAX_TREE_DEPTH = 500;

const WORDS = new Set(['now', 'today', 'nil', 'null', 'skip', 'clear', 'uuid', 'true', 'false']);

class Parser {
  private readonly tokens: Token[];
  private i = 0;
  private depth = 0;
  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)] as Token;
  }
  private next(): Token {
    const t = this.peek();
    if (this.i < this.tokens.length - 1) this.i++;
    return t;
  }
  private isPunct(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'punct' && t.text === text;
  }
  private isWord(text: string): boolean {
    const t = this.peek();
    return t.kind === 'ident' && t.text === text;
  }
  private expect(text: string): Token {
    const t = this.next();
    if (t.kind !== 'punct' || t.text !== text)
      throw new FormulaSyntaxError(`expected "${text}" but found ${describe(t)}`, t.pos);
    return t;
  }
  private enter(pos: number): void {
    if (++this.depth > MAX_DEPTH) throw new FormulaSyntaxError('formula is nested too deeply', pos);
  }

  parseAll(): Expr {
    const e = this.expression();
    const t = this.peek();
    if (t.kind !== 'eof') throw new FormulaSyntaxError(`unexpected ${describe(t)}`, t.pos);
    return e;
  }

  expression(): Expr {
    this.enter(this.peek().pos);
    const e = this.andOrWords();
    this.depth--;
    return e;
  }

  /** `and`/`or` bind loosest and equally, left to right; `not` binds tighter than both (Ruby). */
  private andOrWords(): Expr {
    let left = this.notWord();
    while (this.isWord('and') || this.isWord('or')) {
      const op = this.next().text as 'and' | 'or';
      left = { k: op, l: left, r: this.notWord() };
    }
    return left;
  }

  private notWord(): Expr {
    if (this.isWord('not')) {
      const t = this.next();
      this.enter(t.pos);
      const arg = this.notWord();
      this.depth--;
      return { k: 'not', arg };
    }
    return this.ternary();
  }

  private ternary(): Expr {
    const c = this.orOp();
    if (this.isPunct('?')) {
      this.next();
      const a = this.ternary();
      this.expect(':');
      const b = this.ternary();
      return { k: 'cond', c, a, b };
    }
    return c;
  }

  private orOp(): Expr {
    let left = this.andOp();
    while (this.isPunct('||')) {
      this.next();
      left = { k: 'or', l: left, r: this.andOp() };
    }
    return left;
  }

  private andOp(): Expr {
    let left = this.equality();
    while (this.isPunct('&&')) {
      this.next();
      left = { k: 'and', l: left, r: this.equality() };
    }
    return left;
  }

  private equality(): Expr {
    let left = this.comparison();
    while (this.isPunct('==') || this.isPunct('!=') || this.isPunct('=~')) {
      const t = this.next();
      left = { k: 'bin', op: t.text as BinaryOp, l: left, r: this.comparison(), at: t.pos };
    }
    return left;
  }

  private comparison(): Expr {
    let left = this.additive();
    while (this.isPunct('>') || this.isPunct('<') || this.isPunct('>=') || this.isPunct('<=')) {
      const t = this.next();
      left = { k: 'bin', op: t.text as BinaryOp, l: left, r: this.additive(), at: t.pos };
    }
    return left;
  }

  private additive(): Expr {
    let left = this.multiplicative();
    while (this.isPunct('+') || this.isPunct('-')) {
      const t = this.next();
      left = { k: 'bin', op: t.text as BinaryOp, l: left, r: this.multiplicative(), at: t.pos };
    }
    return left;
  }

  private multiplicative(): Expr {
    let left = this.unaryMinus();
    while (this.isPunct('*') || this.isPunct('/') || this.isPunct('%')) {
      const t = this.next();
      left = { k: 'bin', op: t.text as BinaryOp, l: left, r: this.unaryMinus(), at: t.pos };
    }
    return left;
  }

  private unaryMinus(): Expr {
    // A negative number literal binds like a literal: -4.abs is 4, as in Ruby.
    if (this.isPunct('-') && this.peek(1).kind === 'num' && !this.peek(1).spaced) {
      this.next();
      const t = this.next();
      const lit: Expr = { k: 'lit', v: -(t.value as number), ...(t.float ? { float: true } : {}) };
      const e = this.postfix(lit);
      if (this.isPunct('**')) {
        const op = this.next();
        return { k: 'bin', op: '**', l: e, r: this.unaryMinus(), at: op.pos };
      }
      return e;
    }
    if (this.isPunct('-')) {
      const t = this.next();
      this.enter(t.pos);
      const arg = this.unaryMinus();
      this.depth--;
      if (arg.k === 'lit' && typeof arg.v === 'number')
        return { k: 'lit', v: -arg.v, ...(arg.float ? { float: true } : {}) };
      return { k: 'neg', arg };
    }
    if (this.isPunct('+')) {
      this.next();
      return this.unaryMinus();
    }
    return this.power();
  }

  private power(): Expr {
    const base = this.unaryNot();
    if (this.isPunct('**')) {
      const t = this.next();
      // Right-associative.
      return { k: 'bin', op: '**', l: base, r: this.unaryMinus(), at: t.pos };
    }
    return base;
  }

  private unaryNot(): Expr {
    if (this.isPunct('!')) {
      const t = this.next();
      this.enter(t.pos);
      const arg = this.unaryNot();
      this.depth--;
      return { k: 'not', arg };
    }
    return this.postfix();
  }

  private postfix(start?: Expr): Expr {
    let e = start ?? this.primary();
    for (;;) {
      if (this.isPunct('.') || this.isPunct('&.')) {
        const dot = this.next();
        const name = this.next();
        if (name.kind !== 'ident') throw new FormulaSyntaxError(`expected a method name after "${dot.text}"`, name.pos);
        let args: Expr[] = [];
        if (this.isPunct('(') && !this.peek().spaced) args = this.callArgs();
        e = { k: 'call', recv: e, name: name.text, args, safe: dot.text === '&.', at: name.pos };
        continue;
      }
      if (this.isPunct('[') && !this.peek().spaced) {
        this.next();
        const args = this.listUntil(']');
        if (args.length === 0) throw new FormulaSyntaxError('empty index []', this.peek().pos);
        e = { k: 'index', recv: e, args };
        continue;
      }
      return e;
    }
  }

  /** `(a, b, key: v, 'key op': v, k => v)`: keyword pairs become one trailing hash, as in Ruby. */
  private callArgs(): Expr[] {
    this.expect('(');
    const args: Expr[] = [];
    const pairs: Array<[Expr, Expr]> = [];
    while (!this.isPunct(')')) {
      const pair = this.maybePair();
      if (pair) pairs.push(pair);
      else {
        if (pairs.length > 0)
          throw new FormulaSyntaxError('positional argument after keyword arguments', this.peek().pos);
        args.push(this.expression());
      }
      if (!this.isPunct(',')) break;
      this.next();
    }
    this.expect(')');
    if (pairs.length > 0) args.push({ k: 'hash', entries: pairs });
    return args;
  }

  /** A `key: value` or `key => value` pair at this point, or null (nothing consumed). */
  private maybePair(): [Expr, Expr] | null {
    const t = this.peek();
    const colon = this.peek(1);
    if ((t.kind === 'ident' || t.kind === 'str') && colon.kind === 'punct' && colon.text === ':' && !colon.spaced) {
      this.next();
      this.next();
      return [{ k: 'lit', v: String(t.value) }, this.expression()];
    }
    const save = this.i;
    if (t.kind === 'str' || t.kind === 'sym' || t.kind === 'num') {
      this.next();
      if (this.isPunct('=>')) {
        this.next();
        return [{ k: 'lit', v: t.kind === 'num' ? String(t.value) : String(t.value) }, this.expression()];
      }
      this.i = save;
    }
    return null;
  }

  private listUntil(close: string): Expr[] {
    const items: Expr[] = [];
    while (!this.isPunct(close)) {
      items.push(this.expression());
      if (!this.isPunct(',')) break;
      this.next();
    }
    this.expect(close);
    return items;
  }

  private primary(): Expr {
    const t = this.next();
    switch (t.kind) {
      case 'num':
        return { k: 'lit', v: t.value as number, ...(t.float ? { float: true } : {}) };
      case 'str':
        return { k: 'lit', v: t.value as string };
      case 'sym':
        return { k: 'lit', v: t.value as string };
      case 'regex':
        return { k: 'regex', parts: regexParts(t.value as string, t.pos), flags: t.flags ?? '' };
      case 'ident':
        return this.identifier(t);
      case 'punct':
        if (t.text === '(') {
          const e = this.expression();
          this.expect(')');
          return e;
        }
        if (t.text === '[') {
          this.enter(t.pos);
          const items = this.listUntil(']');
          this.depth--;
          return { k: 'array', items };
        }
        if (t.text === '{') {
          this.enter(t.pos);
          const entries: Array<[Expr, Expr]> = [];
          while (!this.isPunct('}')) {
            const pair = this.maybePair();
            if (pair) entries.push(pair);
            else {
              const key = this.expression();
              this.expect('=>');
              entries.push([key, this.expression()]);
            }
            if (!this.isPunct(',')) break;
            this.next();
          }
          this.expect('}');
          this.depth--;
          return { k: 'hash', entries };
        }
        throw new FormulaSyntaxError(`unexpected ${describe(t)}`, t.pos);
      case 'eof':
        throw new FormulaSyntaxError('formula ends too early', t.pos);
    }
  }

  private identifier(t: Token): Expr {
    const name = t.text;
    if (name === 'true') return { k: 'lit', v: true };
    if (name === 'false') return { k: 'lit', v: false };
    if (name === 'nil' || name === 'null') return { k: 'word', name: 'nil' };
    if (name === '_dp' || name === '_') {
      if (!this.isPunct('(')) throw new FormulaSyntaxError(`${name} needs its argument in parentheses`, t.pos);
      this.next();
      const strings: string[] = [];
      while (!this.isPunct(')')) {
        const arg = this.next();
        if (arg.kind !== 'str') throw new FormulaSyntaxError(`${name}(...) takes string literals only`, arg.pos);
        strings.push(arg.value as string);
        if (!this.isPunct(',')) break;
        this.next();
      }
      this.expect(')');
      try {
        if (name === '_dp') {
          if (strings.length !== 1) throw new PillError('_dp takes one argument');
          return { k: 'pill', pill: parseStructuredPill(strings[0] as string) };
        }
        return { k: 'pill', pill: translateLegacyPill(strings) };
      } catch (error) {
        if (error instanceof PillError) throw new FormulaSyntaxError(error.message, t.pos);
        throw error;
      }
    }
    if (name === 'lookup' || name === 'data_table_lookup') {
      if (!this.isPunct('(')) throw new FormulaSyntaxError(`${name} needs its arguments in parentheses`, t.pos);
      return { k: 'fn', name, args: this.callArgs() };
    }
    if (WORDS.has(name)) {
      if (this.isPunct('(') && !this.peek().spaced && name === 'uuid') {
        this.next();
        this.expect(')');
      }
      return { k: 'word', name: name as 'now' | 'today' | 'skip' | 'clear' | 'uuid' };
    }
    throw new FormulaSyntaxError(`unknown name "${name}"`, t.pos);
  }
}

function regexParts(body: string, pos: number): Array<string | Expr> {
  const parts: Array<string | Expr> = [];
  let i = 0;
  let literal = '';
  while (i < body.length) {
    if (body[i] === '\\') {
      literal += body.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (body[i] === '#' && body[i + 1] === '{') {
      const end = matchingBrace(body, i + 1);
      if (end < 0) throw new FormulaSyntaxError('unterminated #{ in regular expression', pos);
      if (literal) parts.push(literal);
      literal = '';
      parts.push(parseFormula(body.slice(i + 2, end)));
      i = end + 1;
      continue;
    }
    literal += body[i];
    i++;
  }
  if (literal || parts.length === 0) parts.push(literal);
  return parts;
}

/** Index of the `}` that closes the `{` at `open`, skipping string literals; -1 if none. */
export function matchingBrace(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === "'" || c === '"') {
      for (i++; i < src.length && src[i] !== c; i++) if (src[i] === '\\') i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function describe(t: Token): string {
  if (t.kind === 'eof') return 'the end of the formula';
  return `"${t.text.slice(0, 30)}"`;
}

/** Parse one formula expression (without its leading '='). */
export function parseFormula(src: string): Expr {
  if (src.length > MAX_LENGTH) throw new FormulaSyntaxError(`formula is longer than ${MAX_LENGTH} characters`, 0);
  if (src.trim() === '') throw new FormulaSyntaxError('formula is empty', 0);
  const expr = new Parser(lex(src)).parseAll();
  if (treeDepth(expr) > MAX_TREE_DEPTH)
    throw new FormulaSyntaxError(
      `formula is nested too deeply (a chain of more than ${MAX_TREE_DEPTH} operators or calls)`,
      0,
    );
  return expr;
}

/** The depth of a tree, measured without recursion (the tree may be far deeper than the stack). */
function treeDepth(root: Expr): number {
  let deepest = 0;
  const pending: Array<[Expr, number]> = [[root, 1]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [expr, depth] = item;
    if (depth > deepest) deepest = depth;
    if (deepest > MAX_TREE_DEPTH) break;
    for (const child of childrenOf(expr)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** The direct sub-expressions of an expression. */
export function childrenOf(expr: Expr): Expr[] {
  switch (expr.k) {
    case 'lit':
    case 'pill':
    case 'word':
      return [];
    case 'array':
      return expr.items;
    case 'hash':
      return expr.entries.flat();
    case 'regex':
      return expr.parts.filter((part): part is Expr => typeof part !== 'string');
    case 'fn':
      return expr.args;
    case 'call':
    case 'index':
      return [expr.recv, ...expr.args];
    case 'not':
    case 'neg':
      return [expr.arg];
    case 'bin':
    case 'and':
    case 'or':
      return [expr.l, expr.r];
    case 'cond':
      return [expr.c, expr.a, expr.b];
  }
}
