// The checks of a property's name and value, shared by the properties API and package imports.

/** Limits of contract 05 §2 (vendor quotas); lengths count Unicode characters (code points). */
export const PROPERTY_LIMITS = { perLevel: 1000, nameLength: 100, valueLength: 1024 } as const;

/** Control characters (C0, DEL, C1) and unpaired surrogates: refused in names. */
const FORBIDDEN_IN_NAME = /[\p{Cc}\p{Cs}]/u;
/** NUL cannot be stored as text by every database; unpaired surrogates would not survive UTF-8. */
const FORBIDDEN_IN_VALUE = /[\0\p{Cs}]/u;

export function checkPropertyName(name: string): string[] {
  if (name.trim() === '') return ["name can't be blank"];
  if ([...name].length > PROPERTY_LIMITS.nameLength)
    return [`name is too long (maximum is ${PROPERTY_LIMITS.nameLength} characters)`];
  if (FORBIDDEN_IN_NAME.test(name))
    return ['name must not contain control characters (such as tab or newline) or unpaired surrogates'];
  return [];
}

export function checkPropertyValue(value: string): string[] {
  if ([...value].length > PROPERTY_LIMITS.valueLength)
    return [`value is too long (maximum is ${PROPERTY_LIMITS.valueLength} characters)`];
  if (FORBIDDEN_IN_VALUE.test(value)) return ['value must not contain NUL characters or unpaired surrogates'];
  return [];
}
