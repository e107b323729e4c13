// The vendor's Go CLI `wk` as the tests drive it (contract 23 §0, §9): each command sends the
// request wk sends (query parameters only when given, JSON bodies with only the keys wk sets, no
// body where wk sends none) and decodes the reply into wk's structs with goDecode, so a wrong
// wrapper, a wrong type or a non-RFC 3339 time fails here as it fails the CLI. The CLI itself is
// not available to tests; this follows its API layer and commands as the contract states them.
import type { FastifyInstance } from 'fastify';
import { goDecode, ptr, slice, struct, type GoType } from './go-decode.ts';

// wk's structs (internal/api/types.go), field by field.
export const WK = {
  Tag: struct({ handle: 'string', title: 'string', description: 'string', color: 'string' }),
  Connector: struct({ name: 'string', title: 'string', description: 'string' }),
  Connection: struct({
    id: 'int',
    name: 'string',
    application: 'string',
    folder_id: 'int',
    authorization_status: ptr('string'),
    authorization_error: ptr('string'),
    created_at: 'time',
    updated_at: 'time',
  }),
  WorkspaceInfo: struct({ id: 'int', name: 'string', email: 'string' }),
  WorkspaceUser: struct({ id: 'int', name: 'string', email: 'string' }),
  AuditLogEntry: struct({
    id: 'int',
    event_type: 'string',
    timestamp: 'string',
    user: struct({ id: 'int', name: 'string', email: 'string' }),
    details: 'any',
  }),
  RecipeVersion: struct({
    id: 'int',
    version_no: 'int',
    comment: ptr('string'),
    author_name: 'string',
    author_email: 'string',
    created_at: 'time',
    updated_at: 'time',
  }),
  Recipe: struct({
    id: 'int',
    name: 'string',
    description: 'string',
    folder_id: 'int',
    running: 'bool',
    active: 'bool',
    version: 'int',
    created_at: 'time',
    updated_at: 'time',
    code: 'any',
    config: 'any',
    trigger_application: 'string',
  }),
  JobDetail: struct({
    id: 'string',
    recipe_id: 'int',
    status: 'string',
    started_at: ptr('time'),
    completed_at: ptr('time'),
    title: 'string',
    is_error: 'bool',
    error: ptr('string'),
    is_poll_error: 'bool',
    calling_recipe_id: ptr('int'),
    calling_job_id: ptr('string'),
    root_recipe_id: ptr('int'),
    root_job_id: ptr('string'),
    master_job_id: ptr('string'),
    handle: 'string',
    is_repeat: 'bool',
    is_test: 'bool',
    is_test_case_job: 'bool',
    master_job_handle: 'string',
    calling_job_handle: 'string',
    lines: slice(
      struct({
        recipe_line_number: 'int',
        adapter_name: 'string',
        adapter_operation: 'string',
        line_stat: ptr(struct({ started_at: ptr('time'), completed_at: ptr('time') })),
      }),
    ),
  }),
  RepeatJobsResult: struct({
    results: slice(struct({ job_id: 'string', status: 'string', error: 'string' })),
  }),
} as const satisfies Record<string, GoType>;

/* eslint-disable @typescript-eslint/no-explicit-any -- decoded Go values are read by the tests */
type Decoded = any;

/** A command that failed as wk reports it: a non-2xx answer (its `message`, else `error`) or a decode error. */
export class WkError extends Error {
  override name = 'WkError';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface WkRequest {
  method: string;
  url: string;
  body?: Record<string, unknown>;
}

const query = (params: Record<string, string | number | undefined>) => {
  const entries = Object.entries(params).filter(
    ([, v]) => v !== undefined && v !== '' && !(typeof v === 'number' && v <= 0),
  );
  return entries.length === 0
    ? ''
    : `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
};
/** Keys whose value is empty are left out, as wk builds its bodies. */
const bodyOf = (fields: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)),
  );

/** One request of wk's: sent, checked for a 2xx, and the reply decoded as Go decodes it into `into`. */
type WkCall = (
  method: string,
  path: string,
  body: Record<string, unknown> | undefined,
  into: GoType | null,
) => Promise<unknown>;

export function wkClient(app: FastifyInstance, token: string) {
  /** Every request wk made, in order (the tests check what went out). */
  const sent: WkRequest[] = [];

  async function call(method: string, path: string, body: Record<string, unknown> | undefined, into: GoType | null) {
    const url = `/api${path}`;
    sent.push({ method, url, ...(body !== undefined ? { body } : {}) });
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      let message = res.body;
      try {
        const parsed = JSON.parse(res.body) as { message?: unknown; error?: unknown };
        message = String(parsed.message ?? parsed.error ?? res.body);
      } catch {
        // a body that is not JSON is shown as it is
      }
      throw new WkError(res.statusCode, message);
    }
    if (into === null || res.body === '') return into === null ? undefined : goDecode(null, into);
    return goDecode(JSON.parse(res.body), into);
  }

  return {
    sent,
    tags: tagCommands(call),
    connectors: connectorCommands(call),
    connections: connectionCommands(call),
    recipes: recipeCommands(call),
    workspace: workspaceCommands(call),
  };
}

function tagCommands(call: WkCall) {
  return {
    /** wk tags list [--search Q] [--page N --per-page N] */
    async list(opts: { search?: string; page?: number; perPage?: number } = {}): Promise<Decoded[]> {
      const out = (await call(
        'GET',
        `/tags${query({ q: opts.search, page: opts.page, per_page: opts.perPage })}`,
        undefined,
        struct({ data: struct({ tags: slice(WK.Tag) }) }),
      )) as Decoded;
      return out.data.tags ?? [];
    },
    /** wk tags create <title> [--description D] [--color C] */
    create: (title: string, opts: { description?: string; color?: string } = {}): Promise<Decoded> =>
      call('POST', '/tags', bodyOf({ title, description: opts.description, color: opts.color }), WK.Tag),
    /** wk tags update <handle> [--title] [--description] [--color]: only the flags given */
    update: (handle: string, opts: { title?: string; description?: string; color?: string }): Promise<Decoded> =>
      call(
        'PUT',
        `/tags/${handle}`,
        Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
        WK.Tag,
      ),
    /** wk tags delete <handle> */
    delete: (handle: string) => call('DELETE', `/tags/${handle}`, undefined, null),
    /** wk tags apply <handle> --to recipe:R,connection:C */
    apply: (handle: string, to: { recipes?: number[]; connections?: number[] }) =>
      call(
        'POST',
        '/tags_assignments',
        bodyOf({ add_tags: [handle], recipe_ids: to.recipes, connection_ids: to.connections }),
        null,
      ),
    /** wk tags remove <handle> --from recipe:R,connection:C */
    remove: (handle: string, from: { recipes?: number[]; connections?: number[] }) =>
      call(
        'POST',
        '/tags_assignments',
        bodyOf({ remove_tags: [handle], recipe_ids: from.recipes, connection_ids: from.connections }),
        null,
      ),
  };
}

function connectorCommands(call: WkCall) {
  return {
    /** wk connectors list [--search S] */
    async list(search?: string): Promise<Decoded[]> {
      const out = (await call(
        'GET',
        `/integrations${query({ applications: search })}`,
        undefined,
        struct({ items: slice(WK.Connector) }),
      )) as Decoded;
      return out.items ?? [];
    },
  };
}

function connectionCommands(call: WkCall) {
  return {
    /** wk connections list [--folder F] [--application A] [--page --per-page]; A filters on the client */
    async list(opts: { folder?: number; application?: string; page?: number; perPage?: number } = {}) {
      const all = ((await call(
        'GET',
        `/connections${query({ folder_id: opts.folder, page: opts.page, per_page: opts.perPage })}`,
        undefined,
        slice(WK.Connection),
      )) ?? []) as Decoded[];
      return opts.application === undefined ? all : all.filter((c) => c.application === opts.application);
    },
    /** wk connections get <id>: the default list, no parameters, then the id picked locally */
    async get(id: number): Promise<Decoded> {
      const all = ((await call('GET', '/connections', undefined, slice(WK.Connection))) ?? []) as Decoded[];
      const found = all.find((c) => c.id === id);
      if (!found) throw new WkError(404, `connection ${id} not found`);
      return found;
    },
    /** wk connections create --name N --provider P [--folder F] */
    create: (name: string, provider: string, folder?: number): Promise<Decoded> =>
      call('POST', '/connections', bodyOf({ name, provider, folder_id: folder }), WK.Connection),
    /** wk connections update <id> --name N */
    update: (id: number, name: string): Promise<Decoded> => call('PUT', `/connections/${id}`, { name }, WK.Connection),
    /** wk connections delete <id> */
    delete: (id: number) => call('DELETE', `/connections/${id}`, undefined, null),
    /** wk connections disconnect <id>: no body at all */
    disconnect: (id: number) => call('POST', `/connections/${id}/disconnect`, undefined, null),
  };
}

function recipeCommands(call: WkCall) {
  return {
    /** The recipe as wk reads it (the MCP commands take trigger_application from it). */
    get: (id: number): Promise<Decoded> => call('GET', `/recipes/${id}`, undefined, WK.Recipe),
    /** wk recipes update-connection <id> --adapter A --connection C */
    updateConnection: (id: number, adapter: string, connection: number) =>
      call('PUT', `/recipes/${id}/connect`, { adapter_name: adapter, connection_id: connection }, null),
    /** wk recipes versions <id> */
    async versions(id: number, opts: { page?: number; perPage?: number } = {}): Promise<Decoded[]> {
      const out = (await call(
        'GET',
        `/recipes/${id}/versions${query({ page: opts.page, per_page: opts.perPage })}`,
        undefined,
        struct({ data: slice(WK.RecipeVersion) }),
      )) as Decoded;
      return out.data ?? [];
    },
    /** The API layer's GetVersion (no command calls it). */
    version: (id: number, versionId: number): Promise<Decoded> =>
      call('GET', `/recipes/${id}/versions/${versionId}`, undefined, WK.RecipeVersion),
    /** wk recipes versions comment <id> <version_id> <comment> (at most 255 characters, checked by wk) */
    async commentVersion(id: number, versionId: number, comment: string): Promise<Decoded> {
      if (comment.length > 255) throw new WkError(0, 'comment must be 255 characters or fewer');
      return call('PATCH', `/recipes/${id}/versions/${versionId}`, { comment }, WK.RecipeVersion);
    },
    /** wk recipes jobs get <recipe_id> <job_id> */
    job: (id: number, jobId: string): Promise<Decoded> =>
      call('GET', `/recipes/${id}/jobs/${encodeURIComponent(jobId)}`, undefined, WK.JobDetail),
    /** wk recipes jobs retry <recipe_id> <job_id>... */
    async retry(id: number, jobIds: string[]): Promise<Decoded[]> {
      const out = (await call(
        'POST',
        `/recipes/${id}/repeat_jobs`,
        { job_ids: jobIds },
        WK.RepeatJobsResult,
      )) as Decoded;
      return out.results ?? [];
    },
  };
}

function workspaceCommands(call: WkCall) {
  return {
    /** wk workspace info */
    info: (): Promise<Decoded> => call('GET', '/users/me', undefined, WK.WorkspaceInfo),
    /** wk workspace users [--email E] */
    async users(email?: string): Promise<Decoded[]> {
      const out = (await call(
        'GET',
        `/members${query({ email })}`,
        undefined,
        struct({ data: slice(WK.WorkspaceUser) }),
      )) as Decoded;
      return out.data ?? [];
    },
    /** wk workspace audit-log [--since] [--until] [--action], passed through as typed */
    async auditLog(opts: { since?: string; until?: string; action?: string } = {}): Promise<Decoded[]> {
      const out = (await call(
        'GET',
        `/activity_logs${query({ from: opts.since, to: opts.until, event_type: opts.action })}`,
        undefined,
        struct({ data: slice(WK.AuditLogEntry) }),
      )) as Decoded;
      return out.data ?? [];
    },
  };
}

export type Wk = ReturnType<typeof wkClient>;
