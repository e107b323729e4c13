// Message templates (migration 0068).
import type { Db, MessageTemplateRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export interface MessageTemplateApi {
  id: number;
  name: string;
  content_type: MessageTemplateRow['content_type'];
  body: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export function templateToApi(row: MessageTemplateRow): MessageTemplateApi {
  return {
    id: row.id,
    name: row.name,
    content_type: row.content_type,
    body: row.body,
    description: row.description,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export async function insertTemplate(db: Db, values: Omit<MessageTemplateRow, 'id'>): Promise<MessageTemplateRow> {
  return db.insertInto('message_templates').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findTemplate(db: Db, environmentId: number, id: number): Promise<MessageTemplateRow | undefined> {
  return db
    .selectFrom('message_templates')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findTemplateByName(
  db: Db,
  environmentId: number,
  name: string,
): Promise<MessageTemplateRow | undefined> {
  return db
    .selectFrom('message_templates')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('name_key', '=', name.trim().toLowerCase())
    .executeTakeFirst();
}

export async function listTemplates(
  db: Db,
  environmentId: number,
  page: { offset: number; limit: number },
): Promise<MessageTemplateRow[]> {
  return db
    .selectFrom('message_templates')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function updateTemplate(
  db: Db,
  id: number,
  values: Partial<
    Pick<MessageTemplateRow, 'name' | 'name_key' | 'content_type' | 'body' | 'description' | 'updated_at'>
  >,
): Promise<MessageTemplateRow> {
  return db.updateTable('message_templates').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteTemplate(db: Db, id: number): Promise<void> {
  await db.deleteFrom('message_templates').where('id', '=', id).execute();
}
