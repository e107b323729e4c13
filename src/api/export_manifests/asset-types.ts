// The asset types of manifests and packages (contract 15 §1), and those a package can hold.
export const ASSET_TYPES = [
  'recipe',
  'connection',
  'lookup_table',
  'workato_db_table',
  'account_property',
  'project_property',
  'workato_schema',
  'workato_template',
  'lcap_app',
  'lcap_page',
  'custom_adapter',
  'topic',
  'api_group',
  'api_endpoint',
  'agentic_genie',
  'agentic_skill',
  'data_pipeline',
  'decision_engine_model',
  'agentic_knowledge_base',
  'mcp_server',
] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/** The asset types Switchboard holds and packages; the others of the closed enum are refused in a manifest. */
export const PACKAGED_TYPES = [
  'recipe',
  'connection',
  'lookup_table',
  'workato_db_table',
  'topic',
  'api_group',
  'api_endpoint',
  'account_property',
  'project_property',
  'custom_adapter',
] as const;
export type PackagedType = (typeof PACKAGED_TYPES)[number];

export function isPackagedType(type: string): type is PackagedType {
  return (PACKAGED_TYPES as readonly string[]).includes(type);
}

/**
 * The vendor's property files (contract 15 §13): every property of a level in one file, at the
 * package's root (environment properties: `{"<name>": value}`; a project's: `{"data": {...}}`).
 */
export const ACCOUNT_PROPERTIES_FILE = 'account_properties.properties.json';
export const PROJECT_PROPERTIES_FILE = 'properties.project_properties.json';

/** The file a property asset travels in, in the directory of `zipName` (a manifest may name its own). */
export function propertyFileOf(type: 'account_property' | 'project_property', zipName = ''): string {
  const dir = zipName.includes('/') ? zipName.slice(0, zipName.lastIndexOf('/') + 1) : '';
  return `${dir}${type === 'account_property' ? ACCOUNT_PROPERTIES_FILE : PROJECT_PROPERTIES_FILE}`;
}

/** The vendor's project file at a package's root (contract 15 §13): `{description, color, icon}`. */
export const PROJECT_FILE = 'project.json';
