// What a client sent to the recipes API, read and checked: fields, names, columns, values; each problem named by its field.
import type { RecipeRow } from '../../db/types.ts';
import { invalid, type FieldErrors } from '../../errors.ts';
import {
  carryConfig,
  DocumentError,
  MAX_CODE_DEPTH,
  nestsDeeperThan,
  normaliseConfig,
  parseJsonField,
  providersOf,
  unwrapCode,
} from '../../recipe/document.ts';
import { webhookEventName } from '../../recipe/document.ts';

export const MAX_NAME = 255;
const MAX_DESCRIPTION = 10_000;
const MAX_CONCURRENCY = 10;
export const DEFAULT_NAME = 'Untitled recipe';
const ADAPTER_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export function flag(value: string | boolean | undefined, field: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw invalid({ [field]: ['must be true or false'] });
}

export function timestampParam(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms))
    throw invalid({ [field]: ['must be an ISO 8601 timestamp'] });
  return new Date(ms).toISOString();
}

export function intParam(value: string | number | undefined, field: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const text = String(value).trim();
  if (!/^\d{1,15}$/.test(text)) throw invalid({ [field]: ['must be a positive whole number'] });
  return Number(text);
}

export function adapterList(value: string | undefined, field: string): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length > 50 || names.some((n) => !ADAPTER_NAME.test(n)))
    throw invalid({ [field]: ['must be a comma-separated list of connector names'] });
  return names;
}

export interface CheckedDocument {
  code?: string;
  config?: string;
  name?: string;
  description?: string;
  concurrency?: number;
  trigger_application?: string | null;
  action_applications?: string;
  webhook_event?: string | null;
}

/** Check the fields of a create or update; on update, only what was sent (package imports check recipes the same way). */
export function checkFields(fields: RecipeFields, creating: boolean, current?: RecipeRow): CheckedDocument {
  const errors: FieldErrors = {};
  const out: CheckedDocument = {};
  let codeTree: Record<string, unknown> | undefined;
  let wrapperConfig: unknown;
  if (fields.code !== undefined) {
    try {
      const parsed = parseJsonField(fields.code, 'code');
      if (nestsDeeperThan(parsed, MAX_CODE_DEPTH))
        throw new DocumentError('code', `is nested too deeply (maximum is ${MAX_CODE_DEPTH} levels)`);
      const unwrapped = unwrapCode(parsed);
      // A wrapper's code may be a JSON string of its own: its tree is measured once unwrapped.
      if (nestsDeeperThan(unwrapped.code, MAX_CODE_DEPTH))
        throw new DocumentError('code', `is nested too deeply (maximum is ${MAX_CODE_DEPTH} levels)`);
      codeTree = unwrapped.code;
      // Stored verbatim when the client sent the step tree as text; a wrapper is not the code.
      out.code = typeof fields.code === 'string' && !unwrapped.wrapped ? fields.code : JSON.stringify(unwrapped.code);
      wrapperConfig = unwrapped.config;
      if (fields.name === undefined && unwrapped.name !== undefined)
        out.name = unwrapped.name.trim().slice(0, MAX_NAME);
      if (fields.description === undefined && unwrapped.description !== undefined)
        out.description = unwrapped.description.slice(0, MAX_DESCRIPTION);
      if (fields.concurrency === undefined && unwrapped.concurrency !== undefined)
        out.concurrency = Math.min(Math.max(unwrapped.concurrency, 1), MAX_CONCURRENCY);
    } catch (error) {
      if (!(error instanceof DocumentError)) throw error;
      errors[error.field] = [error.message];
    }
  } else if (creating) errors.code = ["can't be blank"];
  if (fields.code !== undefined || fields.config !== undefined) {
    const tree = codeTree ?? (current ? safeParse(current.code) : undefined);
    const rawConfig = fields.config !== undefined ? fields.config : wrapperConfig;
    if (tree !== undefined && !errors.code) {
      try {
        out.config = JSON.stringify(
          rawConfig === undefined && current ? carryConfig(current.config, tree) : normaliseConfig(rawConfig, tree),
        );
      } catch (error) {
        if (!(error instanceof DocumentError)) throw error;
        errors[error.field] = [error.message];
      }
      const providers = providersOf(tree);
      out.trigger_application = providers.trigger;
      out.action_applications = JSON.stringify(providers.actions);
      const input = (tree as { input?: unknown }).input;
      out.webhook_event =
        providers.trigger === 'workato_webhooks'
          ? webhookEventName(typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {})
          : null;
    }
  }
  if (fields.name !== undefined) {
    const name = fields.name.trim();
    if (name === '') errors.name = ["can't be blank"];
    else if (name.length > MAX_NAME) errors.name = [`is too long (maximum is ${MAX_NAME} characters)`];
    else out.name = name;
  }
  if (fields.description !== undefined) {
    if (fields.description.length > MAX_DESCRIPTION)
      errors.description = [`is too long (maximum is ${MAX_DESCRIPTION} characters)`];
    else out.description = fields.description;
  }
  if (fields.concurrency !== undefined) {
    if (!Number.isInteger(fields.concurrency) || fields.concurrency < 1 || fields.concurrency > MAX_CONCURRENCY)
      errors.concurrency = [`must be a whole number from 1 to ${MAX_CONCURRENCY}`];
    else out.concurrency = fields.concurrency;
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return out;
}

export function safeParse(text: string): unknown {
  try {
    return unwrapCode(JSON.parse(text)).code;
  } catch {
    return undefined;
  }
}

export interface RecipeFields {
  name?: string;
  description?: string;
  code?: unknown;
  config?: unknown;
  folder_id?: number;
  concurrency?: number;
}
