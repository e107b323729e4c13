// Data tables: the list, one table's records (paged, searched by one column's value), add, edit
// and delete a record. Values are typed by their column; the form sends text, the service reads it.
import type { Column, Stored } from '../../api/data_tables/columns.ts';
import type { DataRecordApi, DataTableApi } from '../../api/data_tables/data_tables.service.ts';
import { html, query, time } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';

export function dataTablesPage(
  frame: PageFrame,
  tables: readonly DataTableApi[],
  options: { canWrite: boolean; message?: { text: string; kind: 'ok' | 'error' } | undefined } = { canWrite: false },
): string {
  return page(
    frame,
    html`${options.message ? notice(options.message.text, options.message.kind) : ''}${options.canWrite ? html`<p><a class="button" href="/console/data-tables/new">New data table</a></p>` : ''}${
      tables.length === 0
        ? html`<p class="muted">No data table in this environment.</p>`
        : html`
<table><thead><tr><th scope="col">Table</th><th scope="col">Columns</th><th scope="col" class="num">Records</th><th scope="col">Updated</th></tr></thead><tbody>
${tables.map((t) => html`<tr><td><a href="/console/data-tables/${t.id}">${t.name}</a></td><td>${t.schema.map((c) => c.name).join(', ')}</td><td class="num">${t.record_count}</td><td>${time(t.updated_at)}</td></tr>`)}
</tbody></table>`
    }`,
  );
}

function shown(value: Stored | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

const INPUT_TYPES: Record<string, string> = {
  integer: 'number',
  decimal: 'text',
  date: 'date',
  date_time: 'text',
  boolean: 'text',
  string: 'text',
};

function recordFields(
  columns: readonly Column[],
  data: Record<string, Stored> | Record<string, string> | undefined,
  idPrefix: string,
) {
  return columns.map(
    (c, i) =>
      html`<label for="${idPrefix}-${i}">${c.name} <span class="muted small">(${c.type.replace('_', ' ')}${c.optional ? '' : ', required'})</span></label>${
        c.type === 'boolean'
          ? html`<select id="${idPrefix}-${i}" name="col_${i}"><option value="">—</option>${['true', 'false'].map((v) => html`<option${shown(data?.[c.name]) === v ? html` selected` : ''}>${v}</option>`)}</select>`
          : html`<input id="${idPrefix}-${i}" name="col_${i}" type="${INPUT_TYPES[c.type] ?? 'text'}"${c.type === 'integer' ? html` step="1"` : ''} value="${shown(data?.[c.name])}" maxlength="10240"${c.hint ? html` placeholder="${c.hint}"` : ''}>`
      }`,
  );
}

export interface DataTableData {
  table: DataTableApi;
  records: readonly DataRecordApi[];
  search: { column?: string | undefined; value?: string | undefined };
  page: number;
  hasMore: boolean;
  canWrite: boolean;
  message?: { text: string; kind: 'ok' | 'error' } | undefined;
  /** The values of a refused new record, shown again. */
  draft?: Record<string, string> | undefined;
}

export function dataTablePage(frame: PageFrame, data: DataTableData, csrf: string): string {
  const base = `/console/data-tables/${data.table.id}`;
  const columns = data.table.schema;
  const params = { column: data.search.column, value: data.search.value };
  return page(
    frame,
    html`
${data.message ? notice(data.message.text, data.message.kind) : ''}
<p class="muted">${data.table.record_count} records.${data.canWrite ? html` <a href="${base}/schema">Table and columns</a>` : ''}</p>
<form method="get" action="${base}" class="filters" role="search">
  <label>Column <select name="column">${columns.map((c) => html`<option${c.name === data.search.column ? html` selected` : ''}>${c.name}</option>`)}</select></label>
  <label>Value <input type="search" name="value" value="${data.search.value ?? ''}" maxlength="10240"></label>
  <button type="submit">Search</button>${data.search.value !== undefined ? html` <a href="${base}">Show all</a>` : ''}
</form>
${
  data.records.length === 0
    ? html`<p class="muted">No record here.</p>`
    : html`<div class="scroll"><table><thead><tr>${columns.map((c) => html`<th scope="col">${c.name}</th>`)}<th scope="col">Updated</th>${data.canWrite ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead><tbody>
${data.records.map(
  (r, n) =>
    html`<tr>${columns.map((c) => html`<td>${shown(r.data[c.name])}</td>`)}<td>${time(r.updated_at)}</td>${
      data.canWrite
        ? html`<td class="actions"><a href="${base}/records/${r.record_id}">Edit<span class="visually-hidden"> record ${(data.page - 1) * 50 + n + 1}</span></a>
<form method="post" action="${base}/records/${r.record_id}/delete" class="inline">${csrfField(csrf)}<button type="submit" class="link danger" data-confirm="Delete this record?">Delete<span class="visually-hidden"> record ${(data.page - 1) * 50 + n + 1}</span></button></form></td>`
        : ''
    }</tr>`,
)}
</tbody></table></div>`
}
<nav class="pager" aria-label="Pages">${data.page > 1 ? html`<a href="${base}${query({ ...params, page: data.page - 1 })}">Previous page</a>` : ''}
${data.hasMore ? html`<a href="${base}${query({ ...params, page: data.page + 1 })}">Next page</a>` : ''}</nav>
${
  data.canWrite
    ? html`<section aria-labelledby="add-title"><h2 id="add-title">Add a record</h2>
<form method="post" action="${base}/records" class="stack narrow">${csrfField(csrf)}${recordFields(columns, data.draft, 'add')}<button type="submit">Add record</button></form></section>`
    : ''
}`,
  );
}

export function dataRecordPage(
  frame: PageFrame,
  table: DataTableApi,
  record: DataRecordApi,
  csrf: string,
  error?: { text: string; draft: Record<string, string> },
): string {
  const base = `/console/data-tables/${table.id}`;
  return page(
    frame,
    html`
${notice(error?.text, 'error')}
<p><a href="${base}">${table.name}</a> · <span class="muted small">record <code>${record.record_id}</code>, added ${time(record.created_at)}</span></p>
<form method="post" action="${base}/records/${record.record_id}" class="stack narrow">${csrfField(csrf)}${recordFields(table.schema, error?.draft ?? record.data, 'edit')}<button type="submit">Save record</button></form>`,
  );
}
