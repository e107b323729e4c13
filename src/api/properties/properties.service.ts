// Environment and project properties (contract 05 §2 with the README override): one path, the
// level chosen by project_id. Values are strings; an upsert is all or nothing.
import type { ServiceContext } from '../../context.ts';
import type { Db } from '../../db/types.ts';
import { AppError, invalid, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import type { Caller } from '../folders/folders.service.ts';
import { projectOr404 } from '../projects/projects.service.ts';
import {
  countProperties,
  listProperties as listPropertyRows,
  upsertProperties as upsertPropertyRows,
  type PropertyLevel,
} from './properties.store.ts';

import {
  PROPERTY_LIMITS,
  checkPropertyName as checkName,
  checkPropertyValue as checkValue,
} from './property-checks.ts';

export { PROPERTY_LIMITS };

/**
 * Properties whose name starts with `prefix` (case-sensitive; empty or absent: all), as a flat
 * name -> value map. Environment level: full names. Project level: names with the prefix removed.
 */
export async function listProperties(
  ctx: ServiceContext,
  caller: Caller,
  input: { prefix?: string; projectId?: number },
): Promise<Record<string, string>> {
  const level = await resolveLevel(ctx.db, caller, input.projectId);
  const prefix = input.prefix ?? '';
  const rows = (await listPropertyRows(ctx.db, level)).filter((row) => row.name.startsWith(prefix));
  const strip = level.projectId !== null;
  // fromEntries defines own keys, so a name such as "constructor" stays an ordinary key.
  return Object.fromEntries(rows.map((row) => [strip ? row.name.slice(prefix.length) : row.name, row.value]));
}

/** Create or overwrite the given names; anything invalid refuses the whole request. */
export async function upsertProperties(
  ctx: ServiceContext,
  caller: Caller,
  input: { properties: Record<string, unknown>; projectId?: number },
): Promise<void> {
  const given = Object.entries(input.properties);
  if (given.length > PROPERTY_LIMITS.perLevel) {
    throw invalid({
      properties: [
        `has ${given.length} entries; at most ${PROPERTY_LIMITS.perLevel} properties fit in an environment or project`,
      ],
    });
  }
  const errors: FieldErrors = {};
  const entries: [string, string][] = [];
  for (const [name, raw] of given) {
    const problems = [...checkName(name)];
    const value = toText(raw);
    if (value === undefined) problems.push('value must be a string, number or boolean');
    else problems.push(...checkValue(value));
    if (problems.length > 0) errors[name] = problems;
    else entries.push([name, value as string]);
  }
  const refused = Object.keys(errors).length;
  if (refused > 0)
    throw refused === 1
      ? new AppError('property_invalid', { errors })
      : new AppError('properties_invalid', { params: { count: refused }, errors });
  const now = toStored(ctx.clock.now());

  await ctx.db.transaction().execute(async (trx) => {
    const level = await resolveLevel(trx, caller, input.projectId);
    await upsertPropertyRows(trx, level, entries, now);
    // Counted after writing, inside the transaction: throwing here rolls the whole upsert back.
    const total = await countProperties(trx, level);
    if (total > PROPERTY_LIMITS.perLevel) {
      const where = level.projectId === null ? 'environment' : 'project';
      throw new AppError('too_many_properties', {
        params: { max: PROPERTY_LIMITS.perLevel, level: where },
        errors: { properties: [`would make ${total} properties; at most ${PROPERTY_LIMITS.perLevel} per ${where}`] },
      });
    }
  });
  ctx.notifier.publish('properties.changed', { environmentId: caller.environmentId });
}

async function resolveLevel(db: Db, caller: Caller, projectId: number | undefined): Promise<PropertyLevel> {
  if (projectId === undefined)
    return { workspaceId: caller.workspaceId, environmentId: caller.environmentId, projectId: null };
  const project = await projectOr404(db, caller, projectId).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') throw new AppError('project_not_found');
    throw error;
  });
  return { workspaceId: caller.workspaceId, environmentId: caller.environmentId, projectId: project.id };
}

/** Numbers and booleans become their JSON text; objects, arrays and null are refused (undefined). */
function toText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return undefined;
}
