// PostgreSQL array parameters written as their text literal here rather than by node-postgres,
// which escapes each element with two regular expressions in JavaScript. For the arrays of a batch
// of job ends (every line's input and output: a few hundred short JSON texts, dense with quotes)
// that took about 0.4 ms of the event loop before each call was sent, on the path of every job of
// a busy recipe (docs/performance.md, Where a job's time goes on PostgreSQL).
// JSON.stringify escapes `"` and `\` exactly as an array literal does, in native code, and is
// 2.4 times as fast on such texts: `["a\"b",null,1]` is `{"a\"b",null,1}` once its brackets are
// braces (an unquoted `null` is SQL NULL in an array literal, a quoted "null" the text). It
// escapes control characters (`\n`) and lone surrogates (`\ud800`) in JSON's own way, which an
// array literal reads otherwise: a text that JSON escapes so, and a long text (over SHORT
// characters, where node-postgres's two scans for `\` and `"` are faster than JSON's), is
// escaped as node-postgres does. An array holding anything but texts, finite numbers and nulls
// goes to node-postgres as it is.

/** Texts up to this length are escaped by JSON.stringify, longer ones as node-postgres does. */
const SHORT = 256;
/** In JSON's output, an escape that an array literal would read otherwise (`\\` and `\"` it reads alike). */
const JSON_ONLY_ESCAPE = /\\[bfnrtu]/;
const BACKSLASH = /\\/g;
const QUOTE = /"/g;

/** `values` as a PostgreSQL array literal for a parameter cast to an array type, or as given where it cannot. */
export function pgArray(values: readonly unknown[]): string | readonly unknown[] {
  let allShort = true;
  for (const value of values) {
    if (value === null) continue;
    if (typeof value === 'string') {
      if (value.length > SHORT) allShort = false;
    } else if (typeof value !== 'number' || !Number.isFinite(value)) return values;
  }
  if (allShort) {
    const json = JSON.stringify(values);
    if (!JSON_ONLY_ESCAPE.test(json)) return `{${json.slice(1, -1)}}`;
  }
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) literal += ',';
    literal += elementOf(values[i] as string | number | null);
  }
  return `${literal}}`;
}

function elementOf(value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (value.length <= SHORT) {
    const json = JSON.stringify(value);
    if (!JSON_ONLY_ESCAPE.test(json)) return json;
  }
  return `"${value.replace(BACKSLASH, '\\\\').replace(QUOTE, '\\"')}"`;
}
