// An import's applier of message templates (import.ts runs one per asset type, in one transaction).
// Templates belong to the environment and are matched by name (case aside): the template step of a
// recipe names one by an export reference `{zip_name, name, folder}`, which resolves by name, so a
// recipe finds its template in every environment whatever the template's id there.
import { findTemplateByName, insertTemplate, updateTemplate } from '../../message_templates/message_templates.store.ts';
import type { MessageTemplateRow } from '../../../db/types.ts';
import { type ImportRun } from './run.ts';

function contentTypeOf(value: unknown): MessageTemplateRow['content_type'] {
  return value === 'text' || value === 'json' || value === 'xml' ? value : 'html';
}

export async function applyTemplates(run: ImportRun): Promise<void> {
  const { trx, pkg, options, env, now, failFile, byType, name, changes } = run;
  for (const e of byType('workato_template')) {
    if (options.restricted) {
      failFile(
        e.path,
        'message templates belong to the environment: importing them needs a client with access to all projects',
      );
      continue;
    }
    const values = {
      name: name(e),
      name_key: name(e).toLowerCase(),
      content_type: contentTypeOf(e.body.content_type),
      body: String(e.body.body ?? e.body.template),
      description: typeof e.body.description === 'string' ? e.body.description : null,
    };
    const existing = await findTemplateByName(trx, env, values.name);
    if (!existing) {
      await insertTemplate(trx, {
        workspace_id: pkg.workspace_id,
        environment_id: env,
        ...values,
        created_at: now,
        updated_at: now,
      });
      changes.set(e.path, 'created');
    } else if (
      existing.name === values.name &&
      existing.body === values.body &&
      existing.content_type === values.content_type &&
      existing.description === values.description
    )
      changes.set(e.path, 'unchanged');
    else {
      await updateTemplate(trx, existing.id, { ...values, updated_at: now });
      changes.set(e.path, 'updated');
    }
  }
}
