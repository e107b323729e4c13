// What the SaaS services' polling triggers share: where a first poll starts (`since`, else an hour
// before it, as the vendor's triggers default), and the closure read back.
import { StepError } from '../step-error.ts';
import { hashGet, toRubyString, type Hash } from '../../recipe/formula/values.ts';

/** The first poll's start when `since` is not given: an hour before it (the vendor's default). */
export const DEFAULT_LOOKBACK_MS = 60 * 60 * 1000;

/** The trigger's `since` input, or an hour before `now`; a value that is not a time is the poll's error. */
export function startOf(input: Hash, now: Date): Date {
  const raw = hashGet(input, 'since');
  if (raw === null || raw === undefined || raw === '') return new Date(now.getTime() - DEFAULT_LOOKBACK_MS);
  const text = toRubyString(raw).trim();
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new StepError('Bad request', `since ${JSON.stringify(text.slice(0, 60))} is not a time`);
  return new Date(at);
}

/** The closure a poll returned (an object), or an empty one. */
export function closureOf(closure: unknown): Record<string, unknown> {
  return closure !== null && typeof closure === 'object' && !Array.isArray(closure)
    ? (closure as Record<string, unknown>)
    : {};
}

/** A required text input of a trigger. */
export function requiredText(input: Hash, key: string, label: string): string {
  const value = toRubyString(hashGet(input, key) ?? '').trim();
  if (value === '') throw new StepError('Bad request', `${label} can't be blank`);
  return value;
}
