// Lookup tables: the list, one table's rows (search by a column, add, edit, delete).
import type { LookupRowApi, LookupTableApi } from '../../api/lookup_tables/lookup_tables.store.ts';
import { html, query, time } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';
import type { FieldErrors } from '../../errors.ts';
import { field, fieldProblems, problemsOf, refusalNotice, type Refusal } from './form-fields.ts';

/** Columns a lookup table may have (the service's limit), one input each on the new table's form. */
export const TABLE_COLUMNS = 10;

export function lookupTablesPage(
  frame: PageFrame,
  tables: readonly LookupTableApi[],
  options: { canWrite: boolean; message?: { text: string; kind: 'ok' | 'error' } | undefined },
): string {
  return page(
    frame,
    html`${options.message ? notice(options.message.text, options.message.kind) : ''}${options.canWrite ? html`<p><a class="button" href="/console/lookup-tables/new">New lookup table</a></p>` : ''}${
      tables.length === 0
        ? html`<p class="muted">No lookup table in this environment.</p>`
        : html`
<table><thead><tr><th scope="col">Table</th><th scope="col">Columns</th><th scope="col">Updated</th></tr></thead><tbody>
${tables.map((t) => html`<tr><td><a href="/console/lookup-tables/${t.id}">${t.name}</a></td><td>${columnsOf(t).join(', ')}</td><td>${time(t.updated_at)}</td></tr>`)}
</tbody></table>`
    }`,
  );
}

/** What the new table's form holds: as typed, so a refused form comes back filled in. */
export interface TableDraft {
  name: string;
  project_id: string;
  /** TABLE_COLUMNS labels, blank ones left out of the table. */
  columns: readonly string[];
}

/**
 * The new table's form. `errors` are the service's, by its field names (`name`, `project_id`,
 * `schema`, `column_<i>` for the i-th input's label).
 */
export function lookupTableNewPage(frame: PageFrame, draft: TableDraft, csrf: string, refusal?: Refusal): string {
  const errors: FieldErrors | undefined = refusal?.errors;
  const schemaProblems = problemsOf(errors, 'schema');
  return page(
    frame,
    html`${refusalNotice(refusal)}
<p><a href="/console/lookup-tables">Lookup tables</a></p>
<form method="post" action="/console/lookup-tables/new" class="stack narrow" novalidate>${csrfField(csrf)}
${field({ id: 'table-name', name: 'name', label: 'Name', value: draft.name, errors, required: true, maxlength: 255 })}
${field({ id: 'table-project', name: 'project_id', label: 'Project id', value: draft.project_id, errors, type: 'number', hint: 'Optional: the project the table belongs to (a token limited to some projects must give one of them).' })}
<fieldset class="stack"${schemaProblems.length > 0 ? html` aria-describedby="table-columns-error"` : ''}><legend>Columns</legend>
<span class="muted small">Up to ${TABLE_COLUMNS}, each a label; empty ones are left out. Every value is text.</span>
${fieldProblems('table-columns', 'Columns', schemaProblems)}
${draft.columns.map((label, i) =>
  field({
    id: `table-column-${i}`,
    name: `column_${i}`,
    label: `Column ${i + 1}`,
    value: label,
    errors,
    maxlength: 255,
  }),
)}
</fieldset>
<button type="submit">Create table</button></form>`,
  );
}

export function columnsOf(table: Pick<LookupTableApi, 'schema'>): string[] {
  try {
    const parsed: unknown = JSON.parse(table.schema);
    return Array.isArray(parsed)
      ? parsed.map((c: { label?: unknown; name?: unknown }) => String(c?.label ?? c?.name ?? ''))
      : [];
  } catch {
    return [];
  }
}

export interface TableData {
  table: LookupTableApi;
  columns: readonly string[];
  rows: readonly LookupRowApi[];
  search: { column?: string | undefined; value?: string | undefined };
  page: number;
  hasMore: boolean;
  canWrite: boolean;
  message?: { text: string; kind: 'ok' | 'error' } | undefined;
}

function rowFields(columns: readonly string[], data: Record<string, string | null> | undefined, idPrefix: string) {
  return columns.map(
    (c, i) =>
      html`<label for="${idPrefix}-${i}">${c}</label><input id="${idPrefix}-${i}" name="col_${i}" value="${data?.[c] ?? ''}" maxlength="10240">`,
  );
}

export function lookupTablePage(frame: PageFrame, data: TableData, csrf: string): string {
  const base = `/console/lookup-tables/${data.table.id}`;
  const params = { column: data.search.column, value: data.search.value };
  return page(
    frame,
    html`
${data.message ? notice(data.message.text, data.message.kind) : ''}
<form method="get" action="${base}" class="filters" role="search">
  <label>Column <select name="column">${data.columns.map((c) => html`<option${c === data.search.column ? html` selected` : ''}>${c}</option>`)}</select></label>
  <label>Value <input type="search" name="value" value="${data.search.value ?? ''}" maxlength="10240"></label>
  <button type="submit">Search</button>${data.search.value !== undefined ? html` <a href="${base}">Show all</a>` : ''}
</form>
${
  data.rows.length === 0
    ? html`<p class="muted">No row here.</p>`
    : html`<div class="scroll"><table><thead><tr><th scope="col" class="num">Row</th>${data.columns.map((c) => html`<th scope="col">${c}</th>`)}${data.canWrite ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead><tbody>
${data.rows.map(
  (r) =>
    html`<tr><td class="num">${r.id}</td>${data.columns.map((c) => html`<td>${r.data[c] ?? ''}</td>`)}${
      data.canWrite
        ? html`<td class="actions"><a href="${base}/rows/${r.id}">Edit<span class="visually-hidden"> row ${r.id}</span></a>
<form method="post" action="${base}/rows/${r.id}/delete" class="inline">${csrfField(csrf)}<button type="submit" class="link danger" data-confirm="Delete row ${r.id}?">Delete<span class="visually-hidden"> row ${r.id}</span></button></form></td>`
        : ''
    }</tr>`,
)}
</tbody></table></div>`
}
<nav class="pager" aria-label="Pages">${data.page > 1 ? html`<a href="${base}${query({ ...params, page: data.page - 1 })}">Previous page</a>` : ''}
${data.hasMore ? html`<a href="${base}${query({ ...params, page: data.page + 1 })}">Next page</a>` : ''}</nav>
${
  data.canWrite
    ? html`<section aria-labelledby="add-title"><h2 id="add-title">Add a row</h2>
<form method="post" action="${base}/rows" class="stack narrow">${csrfField(csrf)}${rowFields(data.columns, undefined, 'add')}<button type="submit">Add row</button></form></section>
<section aria-labelledby="delete-title"><h2 id="delete-title">Delete the table</h2>
<form method="post" action="${base}/delete" class="inline">${csrfField(csrf)}<button type="submit" class="danger" data-confirm="Delete the table ${data.table.name} and all its rows?">Delete table</button></form></section>`
    : ''
}`,
  );
}

export function lookupRowPage(
  frame: PageFrame,
  table: LookupTableApi,
  columns: readonly string[],
  row: LookupRowApi,
  csrf: string,
  error?: string,
): string {
  const base = `/console/lookup-tables/${table.id}`;
  return page(
    frame,
    html`
${notice(error, 'error')}
<p><a href="${base}">${table.name}</a></p>
<form method="post" action="${base}/rows/${row.id}" class="stack narrow">${csrfField(csrf)}${rowFields(columns, row.data, 'edit')}<button type="submit">Save row</button></form>`,
  );
}
