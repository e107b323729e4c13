// A step line keeps its input and output up to 100,000 characters each (src/engine/executor.ts);
// a larger value is kept whole here, beside the line, so that the console can offer it as a
// download. `field` is 'input' or 'output'. No foreign key (as job_lines on PostgreSQL): the jobs'
// retention deletes a job's values before its lines and the job (src/api/jobs/retention.ts).
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('job_line_values')
    .addColumn('job_id', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('field', 'varchar(10)', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_line_values_pk', ['job_id', 'seq', 'field'])
    .execute();
}
