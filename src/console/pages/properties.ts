// Environment and project properties: the level's properties, each value changed in place, and a
// form that sets one (a new name adds it, an existing one is overwritten), as POST /api/properties.
import type { FieldErrors } from '../../errors.ts';
import { html } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';
import { field, refusalNotice, type Refusal } from './form-fields.ts';

export interface PropertiesData {
  properties: Readonly<Record<string, string>>;
  /** The project whose properties these are; the environment's when absent. */
  projectId?: number | undefined;
  canWrite: boolean;
  message?: { text: string; kind: 'ok' | 'error' } | undefined;
  /** What was typed in the set form, shown again after a refusal. */
  draft?: { name: string; value: string } | undefined;
  refusal?: Refusal | undefined;
}

/** The service names a refused entry by the property's name, its problems "name ..." or "value ...". */
export function propertyErrors(errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const problems of Object.values(errors))
    for (const problem of problems) {
      const [, subject, rest] = /^(name|value) (.*)$/s.exec(problem) ?? [undefined, 'name', problem];
      (out[subject as string] ??= []).push(rest as string);
    }
  return out;
}

export function propertiesPage(frame: PageFrame, data: PropertiesData, csrf: string): string {
  const names = Object.keys(data.properties).sort();
  const project = data.projectId !== undefined ? String(data.projectId) : '';
  const levelField =
    data.projectId !== undefined ? html`<input type="hidden" name="project_id" value="${project}">` : '';
  const errors = data.refusal ? propertyErrors(data.refusal.errors) : undefined;
  return page(
    frame,
    html`${data.message ? notice(data.message.text, data.message.kind) : ''}${refusalNotice(data.refusal)}
<form method="get" action="/console/properties" class="filters">
  <label for="level-project">Project id</label><input id="level-project" name="project_id" type="number" min="1" value="${project}">
  <button type="submit">Show project properties</button>${data.projectId !== undefined ? html` <a href="/console/properties">Show environment properties</a>` : ''}
</form>
<h2>${data.projectId !== undefined ? `Properties of project ${data.projectId}` : 'Environment properties'}</h2>
${
  names.length === 0
    ? html`<p class="muted">No property here.</p>`
    : html`<div class="scroll"><table><thead><tr><th scope="col">Property</th><th scope="col">Value</th></tr></thead><tbody>
${names.map(
  (n, i) =>
    html`<tr><td><code>${n}</code></td><td>${
      data.canWrite
        ? html`<form method="post" action="/console/properties" class="filters">${csrfField(csrf)}${levelField}<input type="hidden" name="name" value="${n}"><label for="prop-${i}" class="visually-hidden">Value of ${n}</label><input id="prop-${i}" name="value" value="${data.properties[n]}" maxlength="1024"><button type="submit">Save<span class="visually-hidden"> ${n}</span></button></form>`
        : data.properties[n]
    }</td></tr>`,
)}</tbody></table></div>`
}
${
  data.canWrite
    ? html`<section aria-labelledby="set-title"><h2 id="set-title">Set a property</h2>
<form method="post" action="/console/properties" class="stack narrow" novalidate>${csrfField(csrf)}${levelField}
${field({ id: 'set-name', name: 'name', label: 'Name', value: data.draft?.name, errors, required: true, maxlength: 100, hint: 'A new name adds the property; an existing one gets the new value.' })}
${field({ id: 'set-value', name: 'value', label: 'Value', value: data.draft?.value, errors, rows: 2, maxlength: 1024 })}
<button type="submit">Save property</button></form>
<p class="muted small">A property cannot be deleted: the API has no delete; an empty value is stored as empty.</p></section>`
    : ''
}`,
  );
}
