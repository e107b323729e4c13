// GET /api/activity_logs (contract 23 §6): the caller's environment's entries, newest first.
import type { ServiceContext } from '../../context.ts';
import { invalid } from '../../errors.ts';
import type { Page } from '../../http/pagination.ts';
import { activityToApi, listActivity, type ActivityFilters, type ActivityLogApi } from './activity_logs.store.ts';

export interface ActivityQuery {
  from?: string;
  to?: string;
  event_type?: string;
  'include_event_types[]'?: string | string[];
  'include_resource_types[]'?: string | string[];
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * A bound of the time filter as stored text. `from` is the instant given; `to` is inclusive of what
 * it names: a date takes the whole day, a time without fractions the whole second.
 */
export function timeBound(value: string, field: 'from' | 'to'): string {
  const text = value.trim();
  const problem = () =>
    invalid({ [field]: ['must be an RFC 3339 date-time (2026-01-15T10:00:00Z) or a date (2026-01-15)'] });
  if (DATE_ONLY.test(text)) {
    const ms = Date.parse(`${text}T00:00:00Z`);
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) throw problem();
    return new Date(field === 'from' ? ms : ms + 86_400_000 - 1).toISOString();
  }
  if (!DATE_TIME.test(text)) throw problem();
  // A time without an offset is read as UTC, the zone every timestamp of the API is given in.
  const normalized = text.replace(' ', 'T').replace(/t/, 'T');
  const zoned = /([Zz]|[+-]\d{2}:?\d{2})$/.test(normalized) ? normalized : `${normalized}Z`;
  const ms = Date.parse(zoned);
  if (Number.isNaN(ms)) throw problem();
  const wholeSecond = !/\.\d/.test(text);
  const end = field === 'to' ? (wholeSecond ? ms + 999 : ms) : ms;
  return new Date(end).toISOString();
}

function listParam(...values: Array<string | string[] | undefined>): string[] {
  return values
    .flat()
    .filter((v): v is string => typeof v === 'string')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export async function listActivityLogs(
  ctx: ServiceContext,
  caller: { environmentId: number },
  query: ActivityQuery,
  page: Page,
): Promise<{ data: ActivityLogApi[] }> {
  const filters: ActivityFilters = {};
  if (query.from !== undefined && query.from !== '') filters.from = timeBound(query.from, 'from');
  if (query.to !== undefined && query.to !== '') filters.to = timeBound(query.to, 'to');
  if (filters.from !== undefined && filters.to !== undefined && filters.from > filters.to)
    throw invalid({ to: ['must not be before from'] });
  const eventTypes = listParam(query.event_type, query['include_event_types[]']);
  if (eventTypes.length > 0) filters.eventTypes = eventTypes;
  const resourceTypes = listParam(query['include_resource_types[]']);
  if (resourceTypes.length > 0) filters.resourceTypes = resourceTypes;
  const rows = await listActivity(ctx.db, caller.environmentId, filters, page);
  return { data: rows.map(activityToApi) };
}
