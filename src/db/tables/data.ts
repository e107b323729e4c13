// Row types of data the recipes keep: lookup tables, event topics and messages, data tables, files, smart lists.
import type { Generated } from 'kysely';

export interface LookupTablesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  project_id: number | null;
  name: string;
  /** Lower-cased name (unique per environment); null once the table is deleted. */
  name_key: string | null;
  /** JSON array of the column labels, by position (col1 first). */
  columns: string;
  row_count: number;
  /** Set by batch delete: the table is gone for the API while its rows are purged. */
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Cells by position; null is an empty cell. */
export interface LookupTableRowsTable {
  id: Generated<number>;
  table_id: number;
  col1: string | null;
  col2: string | null;
  col3: string | null;
  col4: string | null;
  col5: string | null;
  col6: string | null;
  col7: string | null;
  col8: string | null;
  col9: string | null;
  col10: string | null;
  created_at: string;
  updated_at: string;
}

export interface EventTopicsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  /** Trimmed lower-cased name, unique per environment; null once deleted. */
  name_key: string | null;
  description: string | null;
  /** JSON array of schema fields; null: no schema. */
  schema: string | null;
  retention_seconds: number;
  /** Sequence number of the last message published; 0 when none. */
  last_seq: Generated<number>;
  /** Messages up to this sequence number were purged. */
  purged_seq: Generated<number>;
  last_message_at: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface EventMessagesTable {
  topic_id: number;
  seq: number;
  published_at: string;
  /** JSON text of the message object. */
  payload: string;
}

export interface SmartListsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  name: string;
  columns: string;
  primary_index: string | null;
  row_count: number;
  created_at: string;
  updated_at: string;
}

export interface SmartListRowsTable {
  list_id: number;
  seq: number;
  data: string;
}

export interface DataTablesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  /** Lower-cased name, unique per environment. */
  name_key: string;
  /** JSON array of {field_id, name, type, optional, default_value, hint}. */
  columns: string;
  record_count: number;
  created_at: string;
  updated_at: string;
}

export interface DataTableRecordsTable {
  id: Generated<number>;
  table_id: number;
  /** The Record ID (a UUID). */
  record_id: string;
  /** JSON object: column UUID -> value. */
  data: string;
  created_at: string;
  updated_at: string;
}

/** One value of a record, for equality searches. */
export interface DataTableValuesTable {
  table_id: number;
  field_id: string;
  /** The value as text, at most 200 characters. */
  value_key: string;
  record_pk: number;
}

export interface FilesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  /** Normalised absolute path, e.g. `/reports/q1.csv`. */
  path: string;
  /** The path's directory, e.g. `/reports` (`/` at the root). */
  directory: string;
  name: string;
  size: number;
  created_at: string;
  updated_at: string;
}

export interface FileChunksTable {
  file_id: number;
  seq: number;
  data: Uint8Array;
}

export interface FileDirectoriesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  /** Normalised absolute path, e.g. `/reports/2025`. */
  path: string;
  created_at: string;
}

export interface MessageTemplatesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  name: string;
  name_key: string;
  content_type: 'html' | 'text' | 'json' | 'xml';
  body: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface WorkflowAppsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  name: string;
  name_key: string;
  data_table_id: number;
  /** JSON: [{id, name}] in workflow order. */
  stages: string;
  created_at: string;
  updated_at: string;
}

export interface WorkflowAppRequestsTable {
  app_id: number;
  record_id: string;
  stage_id: string;
  updated_at: string;
}
