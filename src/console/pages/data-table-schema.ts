// Data tables authored in the console: a new table with its columns, and a table's name and
// columns changed (rename, remove, add: a column keeps its type, as the API allows). Data in,
// HTML out; the service's problems are shown on the inputs they are about.
import { COLUMN_TYPES, type Column } from '../../api/data_tables/columns.ts';
import type { FieldErrors } from '../../errors.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page, type PageFrame } from '../layout.ts';
import { field, fieldProblems, problemsOf, refusalNotice, type Refusal } from './form-fields.ts';

/** Empty rows for new columns: on a new table, and when changing one. */
export const NEW_COLUMN_ROWS = 8;
export const ADDED_COLUMN_ROWS = 3;

export interface NewColumnDraft {
  name: string;
  type: string;
  required: boolean;
}

/** One form row per column sent to the service, in the order sent: the service's `schema.<i>` is row i. */
export interface SchemaRow {
  /** The input showing this column's problems. */
  inputId: string;
  label: string;
}

const TYPE_LABELS: Record<string, string> = {
  string: 'Text',
  integer: 'Integer',
  decimal: 'Decimal',
  boolean: 'True / false',
  date: 'Date',
  date_time: 'Date and time',
};

/** The service's problems with the i-th column sent, by the form row that gave it. */
function rowProblems(errors: FieldErrors | undefined, rows: readonly SchemaRow[], inputId: string): string[] {
  const at = rows.findIndex((r) => r.inputId === inputId);
  if (at < 0 || !errors) return [];
  return Object.entries(errors)
    .filter(([key]) => key === `schema.${at}` || key.startsWith(`schema.${at}.`))
    .flatMap(([key, problems]) => problems.map((p) => `${key.slice(`schema.${at}.`.length) || 'column'} ${p}`));
}

function newColumnRow(i: number, draft: NewColumnDraft, problems: readonly string[]): Html {
  const id = `col-name-${i}`;
  return html`<div class="column-row"><div class="field"><label for="${id}">New column ${i + 1}: name</label><input id="${id}" name="col_name_${i}" value="${draft.name}" maxlength="255" autocomplete="off"${problems.length > 0 ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}></div>
<div class="field"><label for="col-type-${i}">Type</label><select id="col-type-${i}" name="col_type_${i}">${COLUMN_TYPES.map((t) => html`<option value="${t}"${t === draft.type ? html` selected` : ''}>${TYPE_LABELS[t] ?? t}</option>`)}</select></div>
<div class="check"><input type="checkbox" id="col-req-${i}" name="col_req_${i}" value="1"${draft.required ? html` checked` : ''}><label for="col-req-${i}">Required</label></div>
${fieldProblems(id, `Column ${i + 1}`, problems)}</div>`;
}

export function dataTableNewPage(
  frame: PageFrame,
  draft: { name: string; folder_id: string; columns: readonly NewColumnDraft[] },
  rows: readonly SchemaRow[],
  csrf: string,
  refusal?: Refusal,
): string {
  const errors = refusal?.errors;
  const schemaProblems = problemsOf(errors, 'schema');
  return page(
    frame,
    html`${refusalNotice(refusal)}
<p><a href="/console/data-tables">Data tables</a></p>
<form method="post" action="/console/data-tables/new" class="stack narrow" novalidate>${csrfField(csrf)}
${field({ id: 'dt-name', name: 'name', label: 'Name', value: draft.name, errors, required: true, maxlength: 255 })}
${field({ id: 'dt-folder', name: 'folder_id', label: 'Folder id', value: draft.folder_id, errors, type: 'number', hint: 'Optional: the Home folder when empty (a token limited to some projects must give a folder of one of them).' })}
<fieldset class="stack"><legend>Columns</legend>
<span class="muted small">Up to ${NEW_COLUMN_ROWS} here (more can be added afterwards); rows without a name are left out. A column's type cannot change later.</span>
${fieldProblems('dt-columns', 'Columns', schemaProblems)}
${draft.columns.map((c, i) => newColumnRow(i, c, rowProblems(errors, rows, `col-name-${i}`)))}
</fieldset>
<button type="submit" class="primary">Create data table</button></form>`,
  );
}

export interface SchemaEditDraft {
  name: string;
  /** The table's columns: the name typed, and whether to remove it. */
  existing: ReadonlyArray<{ column: Column; name: string; remove: boolean }>;
  added: readonly NewColumnDraft[];
}

export function dataTableSchemaPage(
  frame: PageFrame,
  table: { id: number; name: string; record_count: number },
  draft: SchemaEditDraft,
  rows: readonly SchemaRow[],
  csrf: string,
  refusal?: Refusal,
): string {
  const errors = refusal?.errors;
  const base = `/console/data-tables/${table.id}`;
  return page(
    frame,
    html`${refusalNotice(refusal)}
<p><a href="${base}">${table.name}</a> · ${table.record_count} records</p>
<form method="post" action="${base}/schema" class="stack narrow" novalidate>${csrfField(csrf)}
${field({ id: 'dt-name', name: 'name', label: 'Table name', value: draft.name, errors, required: true, maxlength: 255 })}
<fieldset class="stack"><legend>Columns</legend>
<span class="muted small">Rename a column (its values stay), or remove it (its values are gone from every record). A column's type cannot change: add a new column instead.</span>
${fieldProblems('dt-columns', 'Columns', problemsOf(errors, 'schema'))}
${draft.existing.map((e, i) => {
  const id = `ex-name-${i}`;
  const problems = rowProblems(errors, rows, id);
  return html`<div class="column-row"><input type="hidden" name="ex_id_${i}" value="${e.column.field_id}"><div class="field"><label for="${id}">Column ${i + 1} <span class="muted small">(${TYPE_LABELS[e.column.type] ?? e.column.type}${e.column.optional ? '' : ', required'})</span></label><input id="${id}" name="ex_name_${i}" value="${e.name}" maxlength="255" autocomplete="off"${problems.length > 0 ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}></div>
<div class="check"><input type="checkbox" id="ex-drop-${i}" name="ex_drop_${i}" value="1"${e.remove ? html` checked` : ''}><label for="ex-drop-${i}">Remove</label></div>
${fieldProblems(id, `Column ${i + 1}`, problems)}</div>`;
})}
${draft.added.map((c, i) => newColumnRow(i, c, rowProblems(errors, rows, `col-name-${i}`)))}
</fieldset>
<button type="submit" class="primary">Save table</button></form>
<form method="post" action="${base}/delete" class="inline">${csrfField(csrf)}<button type="submit" class="danger" data-confirm="Delete this table and its ${table.record_count} records?">Delete table</button></form>`,
  );
}
