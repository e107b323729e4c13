// Message templates (src/api/message_templates/README.md): Mustache bodies stored per environment,
// rendered by `workato_template/create_document` steps that name them by `template_id`.
import type { ServiceContext } from '../../context.ts';
import type { Db, MessageTemplateRow } from '../../db/types.ts';
import { AppError, assertFound, invalid, uniqueOr422, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import {
  deleteTemplate as deleteTemplateRow,
  findTemplate,
  findTemplateByName,
  insertTemplate,
  listTemplates as listTemplateRows,
  templateToApi,
  updateTemplate as updateTemplateRow,
  type MessageTemplateApi,
} from './message_templates.store.ts';

type Caller = Pick<AuthContext, 'workspaceId' | 'environmentId' | 'allFolders'>;

/** The longest body a template may have (the renderer's own bound). */
export const MAX_TEMPLATE_CHARS = 100_000;
const CONTENT_TYPES: ReadonlyArray<MessageTemplateRow['content_type']> = ['html', 'text', 'json', 'xml'];

export interface TemplateInput {
  name?: string;
  content_type?: string;
  body?: string;
  description?: string | null;
}

function check(input: TemplateInput, creating: boolean): FieldErrors {
  const errors: FieldErrors = {};
  if ((creating || input.name !== undefined) && (typeof input.name !== 'string' || input.name.trim() === ''))
    errors.name = ["can't be blank"];
  if ((creating || input.body !== undefined) && typeof input.body !== 'string')
    errors.body = ['is required: the Mustache text'];
  else if (typeof input.body === 'string' && input.body.length > MAX_TEMPLATE_CHARS)
    errors.body = [`is longer than ${MAX_TEMPLATE_CHARS} characters`];
  if (input.content_type !== undefined && !(CONTENT_TYPES as readonly string[]).includes(input.content_type))
    errors.content_type = [`must be one of ${CONTENT_TYPES.join(', ')}`];
  return errors;
}

/** Templates belong to the environment: a client limited to some projects sees none. */
function requireAllFolders(caller: Caller): void {
  if (!caller.allFolders) throw new AppError('message_template_not_found');
}

async function visible(ctx: ServiceContext, caller: Caller, id: number): Promise<MessageTemplateRow> {
  requireAllFolders(caller);
  return assertFound(await findTemplate(ctx.db, caller.environmentId, id), 'message_template_not_found');
}

export async function createTemplate(
  ctx: ServiceContext,
  caller: Caller,
  input: TemplateInput,
): Promise<MessageTemplateApi> {
  requireAllFolders(caller);
  const errors = check(input, true);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const now = toStored(ctx.clock.now());
  const name = (input.name as string).trim();
  const row = await uniqueOr422(() =>
    insertTemplate(ctx.db, {
      workspace_id: caller.workspaceId,
      environment_id: caller.environmentId,
      name,
      name_key: name.toLowerCase(),
      content_type: (input.content_type ?? 'html') as MessageTemplateRow['content_type'],
      body: input.body as string,
      description: input.description ?? null,
      created_at: now,
      updated_at: now,
    }),
  );
  return templateToApi(row);
}

export async function getTemplate(ctx: ServiceContext, caller: Caller, id: number): Promise<MessageTemplateApi> {
  return templateToApi(await visible(ctx, caller, id));
}

export async function listTemplates(
  ctx: ServiceContext,
  caller: Caller,
  page: { offset: number; perPage: number },
): Promise<{ items: MessageTemplateApi[] }> {
  if (!caller.allFolders) return { items: [] };
  const rows = await listTemplateRows(ctx.db, caller.environmentId, { offset: page.offset, limit: page.perPage });
  return { items: rows.map(templateToApi) };
}

export async function updateTemplate(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
  input: TemplateInput,
): Promise<MessageTemplateApi> {
  const row = await visible(ctx, caller, id);
  const errors = check(input, false);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const name = input.name?.trim();
  const updated = await uniqueOr422(() =>
    updateTemplateRow(ctx.db, row.id, {
      ...(name !== undefined ? { name, name_key: name.toLowerCase() } : {}),
      ...(input.content_type !== undefined
        ? { content_type: input.content_type as MessageTemplateRow['content_type'] }
        : {}),
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      updated_at: toStored(ctx.clock.now()),
    }),
  );
  return templateToApi(updated);
}

export async function deleteTemplate(ctx: ServiceContext, caller: Caller, id: number): Promise<{ success: true }> {
  const row = await visible(ctx, caller, id);
  await deleteTemplateRow(ctx.db, row.id);
  return { success: true };
}

/** The template a step names in its environment: an id, its name, or a reference {name} (an export's). */
export async function resolveTemplate(
  db: Db,
  environmentId: number,
  ref: unknown,
): Promise<MessageTemplateRow | undefined> {
  if (typeof ref === 'number' || (typeof ref === 'string' && /^[1-9][0-9]{0,15}$/.test(ref.trim())))
    return (await findTemplate(db, environmentId, Number(ref))) ?? findTemplateByName(db, environmentId, String(ref));
  if (typeof ref === 'string' && ref.trim() !== '') return findTemplateByName(db, environmentId, ref);
  if (typeof ref === 'object' && ref !== null && !Array.isArray(ref)) {
    const name = (ref as Record<string, unknown>).name;
    if (typeof name === 'string' && name.trim() !== '') return findTemplateByName(db, environmentId, name);
  }
  return undefined;
}
