// Skills and MCP servers (the agents area: src/api/mcp, src/api/agentic).
import type { Generated, Selectable } from 'kysely';

export interface AgenticSkillsTable {
  id: Generated<number>;
  handle: string;
  workspace_id: number;
  environment_id: number;
  recipe_id: number;
  created_at: string;
  updated_at: string;
}

export interface McpServersTable {
  id: Generated<number>;
  handle: string;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  description: string | null;
  api_collection_id: number | null;
  auth_type: string;
  token_hash: string;
  idp_user_group_ids: string;
  policy: string | null;
  policy_created_at: string | null;
  policy_updated_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface McpToolsTable {
  id: Generated<number>;
  server_id: number;
  recipe_id: number;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface McpPolicyCountersTable {
  server_id: number;
  kind: string;
  window_start: number;
  count: number;
}

export type AgenticSkillRow = Selectable<AgenticSkillsTable>;
export type McpServerRow = Selectable<McpServersTable>;
export type McpToolRow = Selectable<McpToolsTable>;
