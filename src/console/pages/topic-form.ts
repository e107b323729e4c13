// A new event-stream topic: name, description, retention, the message schema (JSON, the vendor's
// schema format) and the folder; refusals are shown on their field with what was typed.
import { html } from '../html.ts';
import { csrfField, page, type PageFrame } from '../layout.ts';
import { field, refusalNotice, type Refusal } from './form-fields.ts';

export const RETENTION_UNITS = { minutes: 60, hours: 3600, days: 86_400 } as const;
export type RetentionUnit = keyof typeof RETENTION_UNITS;

export interface TopicDraft {
  name: string;
  description: string;
  retention: string;
  unit: RetentionUnit;
  schema: string;
  folder_id: string;
}

export const EMPTY_TOPIC: TopicDraft = {
  name: '',
  description: '',
  retention: '7',
  unit: 'days',
  schema: '',
  folder_id: '',
};

export function topicNewPage(frame: PageFrame, draft: TopicDraft, csrf: string, refusal?: Refusal): string {
  const errors = refusal?.errors;
  const retentionProblems = errors?.retention ?? [];
  return page(
    frame,
    html`${refusalNotice(refusal)}
<p><a href="/console/topics">Topics</a></p>
<form method="post" action="/console/topics/new" class="stack narrow" novalidate>${csrfField(csrf)}
${field({ id: 'topic-name', name: 'name', label: 'Name', value: draft.name, errors, required: true, maxlength: 255 })}
${field({ id: 'topic-description', name: 'description', label: 'Description', value: draft.description, errors, rows: 2, maxlength: 10_000 })}
<fieldset class="filters"><legend>Retention</legend>
<label for="topic-retention">Keep each message for</label><input id="topic-retention" name="retention" type="number" min="1" value="${draft.retention}"${retentionProblems.length > 0 ? html` aria-invalid="true" aria-describedby="topic-retention-error"` : ''}>
<label for="topic-unit" class="visually-hidden">Unit</label><select id="topic-unit" name="unit">${(Object.keys(RETENTION_UNITS) as RetentionUnit[]).map((u) => html`<option value="${u}"${u === draft.unit ? html` selected` : ''}>${u}</option>`)}</select>
</fieldset>
${retentionProblems.length > 0 ? html`<p class="error-text small" id="topic-retention-error">${retentionProblems.map((p, i) => html`${i > 0 ? '; ' : ''}Retention ${p}`)} (one minute to ten years)</p>` : ''}
${field({ id: 'topic-schema', name: 'schema', label: 'Message schema', value: draft.schema, errors, rows: 8, hint: html`Optional: a JSON array of fields, as <code>[{"name": "order_id", "type": "integer"}]</code>; a published message is checked against it.` })}
${field({ id: 'topic-folder', name: 'folder_id', label: 'Folder id', value: draft.folder_id, errors, type: 'number', hint: 'Optional: the Home folder when empty (a token limited to some projects must give a folder of one of them).' })}
<button type="submit">Create topic</button></form>`,
  );
}
