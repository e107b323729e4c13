// Reading a client's connection fields: blanks, names and lengths (connections.service.ts applies them).
import type { FieldErrors } from '../../errors.ts';

const MAX_NAME = 255;

export function emptyToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value;
}

export function checkName(name: string | undefined, errors: FieldErrors): string | undefined {
  const trimmed = name?.trim();
  if (trimmed === undefined || trimmed === '') errors.name = ["can't be blank"];
  else if (trimmed.length > MAX_NAME) errors.name = [`is too long (maximum is ${MAX_NAME} characters)`];
  return trimmed;
}

export function checkLength(value: string | null | undefined, field: string, max: number, errors: FieldErrors): void {
  if (typeof value === 'string' && value.length > max) errors[field] = [`is too long (maximum is ${max} characters)`];
}
