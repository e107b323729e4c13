// Fields of the console's authoring forms: a label, the input, and the problems the service found
// with what was typed (the contract's wording, next to the field, tied to it by aria-describedby).
import { AppError, type FieldErrors } from '../../errors.ts';
import { html, type Html, type Renderable } from '../html.ts';
import { notice } from '../layout.ts';

/** What a refused form shows: the status, the sentence above the form, each field's problems. */
export interface Refusal {
  status: number;
  message: string;
  errors: FieldErrors;
}

/**
 * A service's refusal of what was typed (validation, a name taken, an unknown project), to show on
 * the form again; anything else (a missing privilege, an unknown id in the URL, a failure) is
 * thrown on to the console's error page.
 */
export function refusalOf(error: unknown): Refusal {
  if (error instanceof AppError && error.status >= 400 && error.status < 500 && error.errors !== undefined)
    return { status: error.status, message: error.message, errors: error.errors };
  throw error;
}

export interface FieldOptions {
  id: string;
  name: string;
  label: string;
  value?: string | undefined;
  /** The service's field name whose problems this input shows (defaults to `name`). */
  errorKey?: string;
  errors?: FieldErrors | undefined;
  type?: 'text' | 'number' | 'url';
  required?: boolean;
  maxlength?: number;
  hint?: Renderable;
  /** A textarea of this many rows instead of an input. */
  rows?: number;
}

export function problemsOf(errors: FieldErrors | undefined, key: string): readonly string[] {
  return errors?.[key] ?? [];
}

/** A labelled input with its hint and its problems (`<label>: <problem>`). */
export function field(o: FieldOptions): Html {
  const problems = problemsOf(o.errors, o.errorKey ?? o.name);
  const described = [o.hint ? `${o.id}-hint` : '', problems.length > 0 ? `${o.id}-error` : '']
    .filter((s) => s !== '')
    .join(' ');
  const attrs = html`id="${o.id}" name="${o.name}"${o.required ? html` required` : ''}${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}${described ? html` aria-describedby="${described}"` : ''}${problems.length > 0 ? html` aria-invalid="true"` : ''}`;
  const input =
    o.rows !== undefined
      ? html`<textarea ${attrs} rows="${o.rows}" spellcheck="false">${o.value ?? ''}</textarea>`
      : html`<input ${attrs} type="${o.type ?? 'text'}" value="${o.value ?? ''}">`;
  return html`<label for="${o.id}">${o.label}</label>${o.hint ? html`<span class="muted small" id="${o.id}-hint">${o.hint}</span>` : ''}${input}${fieldProblems(o.id, o.label, problems)}`;
}

export function fieldProblems(id: string, label: string, problems: readonly string[]): Html | '' {
  return problems.length > 0
    ? html`<p class="error-text small" id="${id}-error">${problems.map((p, i) => html`${i > 0 ? '; ' : ''}${label} ${p}`)}</p>`
    : '';
}

/** The sentence above a refused form. */
export function refusalNotice(refusal: Refusal | undefined): Html | '' {
  return refusal ? notice(refusal.message, 'error') : '';
}
