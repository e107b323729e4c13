// An endpoint of a recipe-backed collection may have its requests checked against the request
// schema of its recipe's trigger before a job is stored (`validate_request`, as the vendor's
// endpoint files carry it). Off by default, as before.
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('api_endpoints')
    .addColumn('validate_request', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
