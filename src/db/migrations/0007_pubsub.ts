// Event streams (PubSub, contract 13): topics, their messages, and the topic grants of API
// platform access profiles. A topic's messages are numbered by the topic row itself (last_seq),
// so that ids are allocated under the topic's row lock and commit in the order they are numbered
// (src/api/topics/README.md explains why).
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('event_topics'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('folder_id', 'bigint', (c) => c.notNull().references('folders.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    // The trimmed, lower-cased name; null once the topic is deleted, so the name is free again.
    .addColumn('name_key', 'varchar(255)')
    .addColumn('description', 'text')
    // JSON array of schema fields (Workato schema format); null: messages are not checked.
    .addColumn('schema', 'text')
    .addColumn('retention_seconds', 'integer', (c) => c.notNull())
    // Sequence number of the last message published (0: none yet). Message ids never go back.
    .addColumn('last_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    // Messages up to this sequence number were purged; the retention sweep deletes their rows.
    .addColumn('purged_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn(...ts('last_message_at'))
    // Set by DELETE: the topic is gone for every caller; the sweep deletes its messages in
    // bounded batches, then the row.
    .addColumn(...ts('deleted_at'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('event_topics_name_unique', ['environment_id', 'name_key'])
    .execute();
  await db.schema.createIndex('event_topics_folder').on('event_topics').column('folder_id').execute();

  await db.schema
    .createTable('event_messages')
    .addColumn('topic_id', 'bigint', (c) => c.notNull().references('event_topics.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn(...ts('published_at'), (c) => c.notNull())
    // The message as stored (JSON text of an object), after the topic schema dropped unknown fields.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_messages_pk', ['topic_id', 'seq'])
    .execute();
  // since_time and the start of a topic: the first message after a time, without a scan.
  await db.schema
    .createIndex('event_messages_topic_time')
    .on('event_messages')
    .columns(['topic_id', 'published_at', 'seq'])
    .execute();

  // Access profiles granted topics (13 §1): JSON arrays of topic ids per right.
  await db.schema
    .alterTable('api_access_profiles')
    .addColumn('publish_topic_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('api_access_profiles')
    .addColumn('consume_topic_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}
