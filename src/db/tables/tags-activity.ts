// Row types of tags (and their assignments to recipes and connections) and the activity log.
import type { Generated } from 'kysely';

export interface TagsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  /** The tag's id outside: `tag-<random>`, unique everywhere. */
  handle: string;
  title: string;
  /** The title trimmed and lower-cased: unique in the environment (tags_title_unique). */
  title_key: string;
  description: string | null;
  color: string | null;
  created_at: string;
  updated_at: string;
}

export interface RecipeTagsTable {
  tag_id: number;
  recipe_id: number;
  created_at: string;
}

export interface ConnectionTagsTable {
  tag_id: number;
  connection_id: number;
  created_at: string;
}

export type ActivityVia = 'api' | 'console';

export interface ActivityLogsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  occurred_at: string;
  event_type: string;
  resource_type: string;
  resource_id: string | null;
  resource_name: string | null;
  /** The workspace owner at the time (developer API clients act on the owner's behalf); names copied. */
  user_id: number | null;
  user_name: string;
  user_email: string;
  client_id: number | null;
  client_name: string;
  via: ActivityVia;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  /** JSON object: what changed (never a credential or a request body). */
  details: string;
}
