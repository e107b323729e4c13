// Text as both databases store it. PostgreSQL's text holds no NUL (U+0000): a value with one is
// refused, and so is the statement that carries it, with every row of a batch. A NUL reaches a job
// from outside (a webhook's payload in its title, an error quoting it, a step's output), so the
// jobs' text columns store it as U+FFFD, the replacement character, on either database.

const NUL = '\u0000';
const NUL_ALL = /\u0000/g;

/** `text` with each NUL as U+FFFD; the same string when it holds none. */
export function storableText(text: string): string {
  return text.includes(NUL) ? text.replace(NUL_ALL, '\uFFFD') : text;
}

/** storableText of a text column's value, null kept. */
export function storableTextOrNull(text: string | null): string | null {
  return text === null ? null : storableText(text);
}

/** A column's value as stored: a text as storableText, anything else as it is. */
export function storableValue<T>(value: T): T {
  return typeof value === 'string' ? (storableText(value) as T) : value;
}
