// Connections authored in the console: the application picked from the connector catalog (with
// icons, filtered by name), then the form of its connection as the connector describes its fields
// (text, pick list, password inputs for secrets, required or optional, hints). A stored secret is
// shown as set or not set, never sent back; left blank it stays as it is.
import type { ConnectionApi } from '../../api/connections/connections.store.ts';
import type { ConnectionFormField, ConnectionFormSpec, StoredField } from '../../api/connections/connection-fields.ts';
import type { FieldErrors } from '../../errors.ts';
import { html, type Html } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';
import { CATALOG_GROUPS, searchCatalog } from './editor.ts';
import { field, fieldProblems, problemsOf, refusalNotice, type Refusal } from './form-fields.ts';
import { iconImg, type IconOf } from './icons.ts';

export interface CatalogEntry {
  name: string;
  title: string;
  source: string;
}

/** Step one: the applications a connection can be made for, grouped as the recipe editor's catalog. */
export function connectionPickerPage(
  frame: PageFrame,
  data: { catalog: readonly CatalogEntry[]; query: string; iconOf: IconOf; problem?: string | undefined },
): string {
  const matches = searchCatalog(data.catalog, data.query);
  return page(
    frame,
    html`${data.problem ? notice(data.problem, 'error') : ''}
<p><a href="/console/connections">Connections</a></p>
<form method="get" action="/console/connections/new" class="filters" role="search">
<label for="app-query">Filter by name</label><input id="app-query" name="q" type="search" value="${data.query}" maxlength="100">
<button type="submit">Search</button></form>
${matches.length === 0 ? html`<p class="muted">No application matches “${data.query}”.</p>` : ''}
${CATALOG_GROUPS.map(([source, label]) => {
  const entries = matches.filter((c) => c.source === source);
  return entries.length === 0
    ? ''
    : html`<h2>${label}</h2><ul class="catalog-grid">${entries.map((c) => html`<li><a class="button app" href="/console/connections/new?provider=${encodeURIComponent(c.name)}">${iconImg(data.iconOf(c.name))}<span>${c.title}</span></a></li>`)}</ul>`;
})}`,
  );
}

export interface ConnectionDraft {
  name: string;
  folder_id: string;
  /** What each field shows: typed, or stored when not a secret (a password input is always sent empty). */
  values: Record<string, string>;
  /** Stored secrets to remove (edit only). */
  clear: ReadonlySet<string>;
}

export interface ConnectionFormData {
  /** The connection being edited; null for a new one. */
  connection: ConnectionApi | null;
  provider: string;
  title: string;
  spec: ConnectionFormSpec | undefined;
  folders: ReadonlyArray<{ id: number; name: string }> | null;
  draft: ConnectionDraft;
  stored: Readonly<Record<string, StoredField>>;
  iconOf: IconOf;
  refusal?: Refusal | undefined;
}

/** The field names a problem may be shown on (the rest are listed above the form). */
const OWN_KEYS = new Set(['name', 'folder_id']);

export function connectionFormPage(frame: PageFrame, data: ConnectionFormData, csrf: string): string {
  const errors = data.refusal?.errors;
  const action = data.connection ? `/console/connections/${data.connection.id}/edit` : '/console/connections/new';
  const fields = data.spec?.fields ?? [];
  const shownKeys = new Set([...OWN_KEYS, ...fields.map((f) => `input.${f.name}`)]);
  const elsewhere = Object.entries(errors ?? {}).filter(([key]) => !shownKeys.has(key));
  return page(
    frame,
    html`${refusalNotice(data.refusal)}${elsewhere.length > 0 ? html`<ul class="error-text">${elsewhere.map(([key, problems]) => html`<li>${key.replace(/^input\./, '')} ${problems.join('; ')}</li>`)}</ul>` : ''}
<p><a href="${data.connection ? `/console/connections/${data.connection.id}` : '/console/connections/new'}">${data.connection ? data.connection.name : 'Other applications'}</a></p>
<form method="post" action="${action}" class="stack narrow" novalidate>${csrfField(csrf)}
${data.connection ? '' : html`<input type="hidden" name="provider" value="${data.provider}">`}
<p class="app-title">${iconImg(data.iconOf(data.provider))} <strong>${data.title}</strong> <code>${data.provider}</code></p>
${field({ id: 'conn-name', name: 'name', label: 'Name', value: data.draft.name, errors, required: true, maxlength: 255 })}
${folderField(data, errors)}
${
  data.spec === undefined
    ? html`<p class="muted">No connector for ${data.provider} on this server: its fields cannot be shown; the name and folder can change.</p>`
    : fields.length === 0
      ? html`<p class="muted">This connector's connection has no fields.</p>`
      : html`<fieldset class="stack conn-fields"><legend>${data.title} connection</legend>${fields.map((f, i) => connectorField(f, i, data, errors))}</fieldset>`
}
<button type="submit">${data.connection ? 'Save connection' : 'Create connection'}</button></form>
<p class="muted small">${data.spec !== undefined && fields.length > 0 ? 'Saved fields are tested against the service unless it connects through its own sign-in (then use Connect on the connection page). ' : ''}Credentials are stored encrypted; a secret is never shown again.</p>`,
  );
}

function folderField(data: ConnectionFormData, errors: FieldErrors | undefined): Html {
  if (data.folders === null)
    return field({
      id: 'conn-folder',
      name: 'folder_id',
      label: 'Folder id',
      value: data.draft.folder_id,
      errors,
      type: 'number',
      hint: 'Home when empty (a token limited to some projects must give a folder of one of them).',
    });
  const problems = problemsOf(errors, 'folder_id');
  const listed = data.folders.some((f) => String(f.id) === data.draft.folder_id);
  return html`<label for="conn-folder">Folder or project</label><select id="conn-folder" name="folder_id"${problems.length > 0 ? html` aria-invalid="true" aria-describedby="conn-folder-error"` : ''}>${!listed && data.draft.folder_id !== '' ? html`<option value="${data.draft.folder_id}" selected>Folder ${data.draft.folder_id}</option>` : ''}${data.folders.map((f) => html`<option value="${f.id}"${String(f.id) === data.draft.folder_id ? html` selected` : ''}>${f.name}</option>`)}</select>${fieldProblems('conn-folder', 'Folder', problems)}`;
}

/** One of the connector's fields: its label (and whether it is optional), hint, input and problems. */
function connectorField(
  f: ConnectionFormField,
  index: number,
  data: ConnectionFormData,
  errors: FieldErrors | undefined,
): Html {
  const id = `conn-field-${index}`;
  const name = `input.${f.name}`;
  const problems = problemsOf(errors, name);
  const stored = data.stored[f.name];
  const secretState =
    f.kind === 'password' || (stored?.set === true && stored.value === null)
      ? stored?.set
        ? html`Set: leave blank to keep it.`
        : data.connection
          ? html`Not set.`
          : ''
      : '';
  const hint = [f.hint ?? '', f.default !== null && f.kind !== 'select' ? `Default: ${f.default}.` : '']
    .filter((s) => s !== '')
    .join(' ');
  const described = [
    hint !== '' ? `${id}-hint` : '',
    secretState !== '' ? `${id}-state` : '',
    problems.length > 0 ? `${id}-error` : '',
  ]
    .filter((s) => s !== '')
    .join(' ');
  const attrs = html`id="${id}" name="${name}"${described ? html` aria-describedby="${described}"` : ''}${problems.length > 0 ? html` aria-invalid="true"` : ''}${!f.optional && !(stored?.set === true && stored.value === null) ? html` required` : ''}`;
  const typed = data.draft.values[f.name] ?? '';
  const input =
    f.kind === 'select'
      ? html`<select ${attrs}>${f.optional || !data.draft.values[f.name] ? html`<option value="">${f.default !== null ? `Default (${f.default})` : 'None'}</option>` : ''}${f.options.map(([label, value]) => html`<option value="${value}"${value === typed ? html` selected` : ''}>${label}</option>`)}</select>`
      : f.kind === 'textarea'
        ? html`<textarea ${attrs} rows="3" spellcheck="false">${typed}</textarea>`
        : f.kind === 'password'
          ? html`<input ${attrs} type="password" value="" autocomplete="new-password">`
          : html`<input ${attrs} type="text" value="${typed}" spellcheck="false">`;
  const clearBox =
    data.connection && stored?.set === true && stored.value === null && f.optional
      ? html`<label class="small"><input type="checkbox" name="clear.${f.name}" value="1"${data.draft.clear.has(f.name) ? html` checked` : ''}> Remove the stored ${f.label}</label>`
      : '';
  return html`<div class="field"><label for="${id}">${f.label}${f.optional ? html` <span class="muted small">(optional)</span>` : ''}</label>${hint !== '' ? html`<span class="muted small" id="${id}-hint">${hint}</span>` : ''}${secretState !== '' ? html`<span class="small" id="${id}-state">${secretState}</span>` : ''}${input}${clearBox}${fieldProblems(id, f.label, problems)}</div>`;
}
