import { Type, type Static } from 'typebox';
import { Id, IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

/** The fields of a recipe in a create/update body, wrapped in `recipe` or not (14 §4). */
const RecipeFields = {
  name: Type.Optional(Type.String({ maxLength: 10_000 })),
  description: Type.Optional(Type.String({ maxLength: 100_000 })),
  // The size of code and config is bounded by the route's body limit (RECIPE_BODY_LIMIT_BYTES).
  code: Type.Optional(
    Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], {
      description: 'The step tree: JSON text (stored verbatim) or an object',
    }),
  ),
  config: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.Unknown(), { maxItems: 1000 }), Type.Null()], {
      description: 'Connector slots: JSON text or an array',
    }),
  ),
  folder_id: Type.Optional(IdInput),
  concurrency: Type.Optional(Type.Integer({ description: 'Jobs of this recipe processed at once (1-10)' })),
  worker_concurrency: Type.Optional(Type.Integer()),
  recipe_id: Type.Optional(IdInput),
  // The export and API read forms carry these; they are read, not required.
  version: Type.Optional(Type.Unknown()),
  result: Type.Optional(Type.Unknown()),
};

export const RecipeBody = Type.Object({
  recipe: Type.Optional(Type.Object(RecipeFields)),
  ...RecipeFields,
});
export type RecipeBody = Static<typeof RecipeBody>;

export const CopyBody = Type.Object({
  folder_id: Type.Optional(IdInput),
  name: Type.Optional(Type.String({ maxLength: 10_000 })),
  recipe: Type.Optional(
    Type.Object({ folder_id: Type.Optional(IdInput), name: Type.Optional(Type.String({ maxLength: 10_000 })) }),
  ),
});
export type CopyBody = Static<typeof CopyBody>;

const ConfigEntry = Type.Object(
  {
    keyword: Type.String(),
    name: Type.String(),
    provider: Type.String(),
    skip_validation: Type.Boolean(),
    account_id: Type.Union([Type.Integer(), Type.Null()]),
  },
  { additionalProperties: true },
);

export const Recipe = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  name: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  copy_count: Type.Integer(),
  trigger_application: Type.Optional(Type.String()),
  action_applications: Type.Array(Type.String()),
  applications: Type.Array(Type.String()),
  description: Type.String(),
  parameters_schema: Type.Array(Type.Unknown()),
  parameters: Type.Object({}, { additionalProperties: true }),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  folder_id: Type.Integer(),
  project_id: Type.Union([Type.Integer(), Type.Null()]),
  running: Type.Boolean(),
  job_succeeded_count: Type.Integer(),
  job_failed_count: Type.Integer(),
  lifetime_task_count: Type.Integer(),
  last_run_at: Type.Optional(Timestamp),
  stopped_at: Type.Optional(Timestamp),
  version_no: Type.Integer(),
  stop_cause: Type.Union([Type.String(), Type.Null()]),
  config: Type.Array(ConfigEntry),
  trigger_closure: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  code: Type.String({ description: 'The step tree as JSON text, as it was sent' }),
  author_name: Type.String(),
  version_author_name: Type.String(),
  version_author_email: Type.String(),
  version_comment: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Optional(Type.Array(Type.String())),
});

export const RecipeList = Type.Object({ items: Type.Array(Recipe) });

export const ListQuery = Type.Object({
  ...PageQuery,
  adapter_names_all: Type.Optional(Type.String({ maxLength: 5000 })),
  adapter_names_any: Type.Optional(Type.String({ maxLength: 5000 })),
  folder_id: Type.Optional(Type.String({ maxLength: 20 })),
  order: Type.Optional(Type.String({ maxLength: 20 })),
  running: Type.Optional(Type.String({ maxLength: 10 })),
  active: Type.Optional(Type.String({ maxLength: 10 })),
  since_id: Type.Optional(Type.String({ maxLength: 20 })),
  stopped_after: Type.Optional(Type.String({ maxLength: 50 })),
  stop_cause: Type.Optional(Type.String({ maxLength: 50 })),
  updated_after: Type.Optional(Type.String({ maxLength: 50 })),
  exclude_code: Type.Optional(Type.String({ maxLength: 10 })),
  'includes[]': Type.Optional(
    Type.Union([Type.String({ maxLength: 50 }), Type.Array(Type.String({ maxLength: 50 }), { maxItems: 10 })]),
  ),
  includes: Type.Optional(
    Type.Union([Type.String({ maxLength: 50 }), Type.Array(Type.String({ maxLength: 50 }), { maxItems: 10 })]),
  ),
});
export type ListQuery = Static<typeof ListQuery>;

export const GetQuery = Type.Object({
  'includes[]': Type.Optional(
    Type.Union([Type.String({ maxLength: 50 }), Type.Array(Type.String({ maxLength: 50 }), { maxItems: 10 })]),
  ),
  includes: Type.Optional(
    Type.Union([Type.String({ maxLength: 50 }), Type.Array(Type.String({ maxLength: 50 }), { maxItems: 10 })]),
  ),
});

export const CreateResult = Type.Object({
  success: Type.Boolean(),
  id: Type.Integer(),
  new_flow_id: Type.Optional(Type.Integer()),
});
export const CopyResult = Type.Object({ success: Type.Boolean(), new_flow_id: Type.Integer() });

const FieldErrors = Type.Unsafe<Record<string, string[]>>({
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'string' } },
});
export const MutationResult = Type.Object({ success: Type.Boolean(), errors: Type.Optional(FieldErrors) });

/** [step_number, [[label, value, message, path?], ...]] (14 §7). */
const StepErrorList = Type.Array(Type.Array(Type.Unknown()), {
  description: 'Pairs [step_number, [[label, current_value, message, path?], ...]]',
});
export const StartResult = Type.Object({
  success: Type.Boolean(),
  code_errors: Type.Optional(StepErrorList),
  config_errors: Type.Optional(StepErrorList),
});

export const RecipeIdParams = Type.Object({ recipe_id: Id });
export const VersionParams = Type.Object({ recipe_id: Id, id: Id });
export const VersionListQuery = Type.Object({ ...PageQuery });

export const MAX_VERSION_COMMENT = 255;

export const VersionCommentBody = Type.Object({
  comment: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength: MAX_VERSION_COMMENT,
    description: `The version's comment (at most ${MAX_VERSION_COMMENT} characters); null clears it`,
  }),
});
export type VersionCommentBody = Static<typeof VersionCommentBody>;

const VersionFields = {
  id: Type.Integer({ description: 'Version id (the :id of the version routes)' }),
  version_no: Type.Integer({ description: "The recipe's version_no when this version was saved" }),
  comment: Type.Union([Type.String(), Type.Null()]),
  author_name: Type.String(),
  author_email: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const RecipeVersion = Type.Object(VersionFields);
export const RecipeVersionList = Type.Object({ data: Type.Array(RecipeVersion) });

/** One version with the content it saved: the recipe's name, description, code and config at that version. */
export const RecipeVersionDetail = Type.Object({
  ...VersionFields,
  name: Type.String(),
  description: Type.String(),
  code: Type.String({ description: 'The step tree as JSON text, as it was sent' }),
  config: Type.Array(ConfigEntry),
});

export const ConnectBody = Type.Object({
  adapter_name: Type.String({ description: 'The connector (provider) of the slot, e.g. rest' }),
  connection_id: Type.Union([IdInput, Type.Null()], {
    description: 'A connection with that provider, or null to empty the slot',
  }),
});
