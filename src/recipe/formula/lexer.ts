// The formula lexer: source text to tokens (numbers, strings, identifiers, symbols, regexes, punctuation),
// bounded in length; a syntax error names its position.
export class FormulaSyntaxError extends Error {
  override name = 'FormulaSyntaxError';
  readonly position: number;
  constructor(message: string, position: number) {
    super(`${message} (at character ${position + 1})`);
    this.position = position;
  }
}

type TokKind = 'num' | 'str' | 'ident' | 'sym' | 'regex' | 'punct' | 'eof';
export interface Token {
  kind: TokKind;
  text: string;
  /** Parsed value: the number, the string contents, the regex source. */
  value?: string | number;
  float?: boolean;
  flags?: string;
  pos: number;
  /** Whitespace directly before the token. */
  spaced: boolean;
}

/** Longest first. */
const PUNCTUATION = [
  '**',
  '==',
  '!=',
  '>=',
  '<=',
  '&&',
  '||',
  '&.',
  '=>',
  '=~',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '.',
  '?',
  ':',
  '+',
  '-',
  '*',
  '/',
  '%',
  '>',
  '<',
  '!',
];

function isIdentStart(c: string): boolean {
  return /[A-Za-z_]/.test(c);
}
function isIdentChar(c: string): boolean {
  return /[A-Za-z0-9_]/.test(c);
}

export function lex(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let spaced = false;
  const operandEnded = () => {
    const last = tokens[tokens.length - 1];
    if (!last) return false;
    if (
      last.kind === 'num' ||
      last.kind === 'str' ||
      last.kind === 'ident' ||
      last.kind === 'sym' ||
      last.kind === 'regex'
    )
      return true;
    return last.kind === 'punct' && (last.text === ')' || last.text === ']' || last.text === '}');
  };
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      spaced = true;
      continue;
    }
    const start = i;
    const push = (t: Omit<Token, 'pos' | 'spaced'>) => {
      tokens.push({ ...t, pos: start, spaced });
      spaced = false;
    };
    if (/[0-9]/.test(c)) {
      let j = i;
      while (j < src.length && /[0-9_]/.test(src[j] as string)) j++;
      let float = false;
      if (src[j] === '.' && /[0-9]/.test(src[j + 1] ?? '')) {
        float = true;
        j++;
        while (j < src.length && /[0-9_]/.test(src[j] as string)) j++;
      }
      if ((src[j] === 'e' || src[j] === 'E') && /[-+0-9]/.test(src[j + 1] ?? '') && float) {
        j++;
        if (src[j] === '-' || src[j] === '+') j++;
        while (j < src.length && /[0-9]/.test(src[j] as string)) j++;
      }
      const text = src.slice(i, j);
      push({ kind: 'num', text, value: Number(text.replace(/_/g, '')), float });
      i = j;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      let out = '';
      for (;;) {
        if (j >= src.length) throw new FormulaSyntaxError('unterminated string', start);
        const ch = src[j] as string;
        if (ch === c) break;
        if (ch === '\\') {
          const next = src[j + 1] ?? '';
          if (c === "'") {
            out += next === "'" || next === '\\' ? next : `\\${next}`;
          } else {
            out +=
              ({ n: '\n', t: '\t', r: '\r', '0': '\0', e: '\x1b', s: ' ' } as Record<string, string>)[next] ?? next;
          }
          j += 2;
          continue;
        }
        if (c === '"' && ch === '#' && src[j + 1] === '{') {
          throw new FormulaSyntaxError(
            'string interpolation #{...} is not allowed inside a formula string; use + to join strings',
            j,
          );
        }
        out += ch;
        j++;
      }
      push({ kind: 'str', text: src.slice(i, j + 1), value: out });
      i = j + 1;
      continue;
    }
    if (c === '/' && !operandEnded()) {
      let j = i + 1;
      let inClass = false;
      let depth = 0;
      for (;;) {
        if (j >= src.length) throw new FormulaSyntaxError('unterminated regular expression', start);
        const ch = src[j] as string;
        if (ch === '\\') {
          j += 2;
          continue;
        }
        if (ch === '#' && src[j + 1] === '{') depth++;
        else if (ch === '}' && depth > 0) depth--;
        else if (depth === 0 && ch === '[') inClass = true;
        else if (depth === 0 && ch === ']') inClass = false;
        else if (depth === 0 && ch === '/' && !inClass) break;
        j++;
      }
      const body = src.slice(i + 1, j);
      let k = j + 1;
      while (k < src.length && /[imx]/.test(src[k] as string)) k++;
      push({ kind: 'regex', text: src.slice(i, k), value: body, flags: src.slice(j + 1, k) });
      i = k;
      continue;
    }
    if (c === ':' && isIdentStart(src[i + 1] ?? '') && !operandEnded()) {
      let j = i + 1;
      while (j < src.length && isIdentChar(src[j] as string)) j++;
      if (src[j] === '?' || src[j] === '!') j++;
      push({ kind: 'sym', text: src.slice(i, j), value: src.slice(i + 1, j) });
      i = j;
      continue;
    }
    if (c === ':' && (src[i + 1] === "'" || src[i + 1] === '"') && !operandEnded()) {
      // :'quoted symbol' — lex the string, then mark it a symbol.
      i++;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i;
      while (j < src.length && isIdentChar(src[j] as string)) j++;
      const last = tokens[tokens.length - 1];
      const afterDot = last?.kind === 'punct' && (last.text === '.' || last.text === '&.');
      if (afterDot && (src[j] === '?' || src[j] === '!') && src[j + 1] !== '=') j++;
      push({ kind: 'ident', text: src.slice(i, j), value: src.slice(i, j) });
      i = j;
      continue;
    }
    if (c === '[' && src[i + 1] === ']') {
      const last = tokens[tokens.length - 1];
      if (last?.kind === 'punct' && (last.text === '.' || last.text === '&.')) {
        push({ kind: 'ident', text: '[]', value: '[]' });
        i += 2;
        continue;
      }
    }
    const p = PUNCTUATION.find((op) => src.startsWith(op, i));
    if (!p) throw new FormulaSyntaxError(`unexpected character ${JSON.stringify(c)}`, i);
    push({ kind: 'punct', text: p });
    i += p.length;
  }
  tokens.push({ kind: 'eof', text: '', pos: src.length, spaced });
  return tokens;
}
