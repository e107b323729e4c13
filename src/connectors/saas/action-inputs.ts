// Reading a named action's input as the vendor's recipes store it (plain values after the step's
// formulas ran), and the step's output back: blank fields left out, lists given as a comma-separated
// text or a list, file content as text. Shared by the SaaS services' named actions.
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector, StepContext } from '../types.ts';
import type { ConnectorSession } from '../definition.ts';
import { stepSession } from '../connections.ts';
import { fromPlain, toPlain, type Value } from '../../recipe/formula/values.ts';

export type Plain = Record<string, unknown>;

/** A field's text, or '' when blank or absent; the first of `keys` that is not blank. */
export function textOf(input: Plain, ...keys: string[]): string {
  for (const key of keys) {
    const value = input[key];
    if (value === null || value === undefined) continue;
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    if (text !== '') return text;
  }
  return '';
}

/** A field that must be given, trimmed: "<label> can't be blank" before any request. */
export function requiredText(input: Plain, label: string, ...keys: string[]): string {
  const text = textOf(input, ...keys).trim();
  if (text === '') throw new StepError('Bad request', `${label} can't be blank`);
  return text;
}

/** An object field (a row's columns, template data), or {} when absent. */
export function objectOf(input: Plain, key: string): Plain {
  const value = input[key];
  if (value === null || value === undefined || value === '') return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new StepError('Bad request', `${key} must be an object of fields`);
  return value as Plain;
}

/** A list field: a list, or a text of items separated by commas or semicolons. */
export function listOf(input: Plain, key: string): unknown[] {
  const value = input[key];
  if (value === null || value === undefined || value === '') return [];
  if (Array.isArray(value)) return value;
  if (typeof value === 'string')
    return value
      .split(/[,;]/)
      .map((s) => s.trim())
      .filter((s) => s !== '');
  return [value];
}

const EMAIL = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/;

/** E-mail addresses of a field (`a@x.example, Ana <b@x.example>`), each checked. */
export function addressesOf(input: Plain, key: string, label: string): Array<{ email: string; name?: string }> {
  return listOf(input, key).map((item) => {
    const raw = String(typeof item === 'object' && item !== null ? ((item as Plain).email ?? '') : item).trim();
    const named = /^(.*)<([^<>]+)>$/.exec(raw);
    const email = (named ? named[2] : raw)?.trim() ?? '';
    if (!EMAIL.test(email))
      throw new StepError('Bad request', `${label}: ${JSON.stringify(raw.slice(0, 80))} is not an e-mail address`);
    const name = named?.[1]?.trim().replace(/^"|"$/g, '');
    return name ? { email, name } : { email };
  });
}

/** A positive whole number field, at most `max`; `fallback` when blank. */
export function countOf(input: Plain, key: string, fallback: number, max: number): number {
  const text = textOf(input, key).trim();
  if (text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new StepError('Bad request', `${key} must be a whole number above 0`);
  return Math.min(n, max);
}

/** File content given in a step: its text as UTF-8 bytes. */
export function bytesOf(content: string): Buffer {
  return Buffer.from(content, 'utf8');
}

/** File content for a step's output: UTF-8 text when it is, else one character per byte. */
export function contentOf(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : bytes.toString('latin1');
}

/** A named action over a SaaS connection: the input as plain values, the output made a recipe value. */
export function saasAction(
  title: string,
  self: () => Connector,
  options: Pick<ActionDef, 'required' | 'inputFields' | 'outputFields' | 'description'>,
  run: (input: Plain, session: () => Promise<ConnectorSession>, sc: StepContext) => Promise<unknown>,
): ActionDef {
  return {
    title,
    ...options,
    async run(input, sc): Promise<Value> {
      const plain = (toPlain(input) ?? {}) as Plain;
      return fromPlain(await run(plain, () => stepSession(sc, self()), sc));
    },
  };
}
