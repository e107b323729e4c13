import { Type } from 'typebox';
import { Id, Timestamp } from '../../http/schemas.ts';

export const RecipeParams = Type.Object({ recipe_id: Id });
export const TestCaseParams = Type.Object({
  recipe_id: Id,
  id: Type.String({ maxLength: 40, description: 'Test case id (citc-...)' }),
});
export const RunRequestParams = Type.Object({
  id: Type.String({ maxLength: 40, description: 'Run request id (cirr-...)' }),
});

const Any = Type.Unsafe<unknown>({});

export const TestCaseBody = Type.Object({
  name: Type.Optional(Type.String({ description: 'Unique within the recipe; required on create' })),
  description: Type.Optional(Type.String()),
  trigger_output: Type.Optional(
    Type.Unsafe<unknown>({
      description: "The trigger's output the job starts from, as the recipe's datapills read it (an object)",
    }),
  ),
  mocks: Type.Optional(
    Type.Unsafe<unknown>({
      description: 'List of {step, output} or {step, error: {type?, message}}; step is an alias (as) or #number',
    }),
  ),
  expectations: Type.Optional(
    Type.Unsafe<unknown>({
      description:
        'List of {job_status}, {step, ran}, {step, failed, error_contains?}, {step, output_path?, equals | contains | present}',
    }),
  ),
  allow_external: Type.Optional(
    Type.Boolean({
      description: 'Let unmocked steps reach systems outside Switchboard (default false: such a step fails the test)',
    }),
  ),
});

const Summary = {
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  recipe_id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const TestCaseList = Type.Object({ data: Type.Array(Type.Object(Summary)) });
export const TestCaseResult = Type.Object({
  data: Type.Object({
    ...Summary,
    trigger_output: Any,
    mocks: Type.Array(Any),
    expectations: Type.Array(Any),
    allow_external: Type.Boolean(),
  }),
});

export const RunBody = Type.Object({
  recipe_id: Type.Optional(Type.Unsafe<unknown>({ description: 'All test cases of this recipe' })),
  test_case_ids: Type.Optional(Type.Unsafe<unknown>({ description: 'These test cases' })),
  folder_id: Type.Optional(
    Type.Unsafe<unknown>({ description: 'All test cases of the recipes in this folder and below' }),
  ),
  project_id: Type.Optional(Type.Unsafe<unknown>({ description: 'All test cases of the recipes of this project' })),
  manifest_id: Type.Optional(
    Type.Unsafe<unknown>({ description: 'All test cases of the recipes of this export manifest' }),
  ),
});

export const RunRequest = Type.Object({
  data: Type.Object({
    id: Type.String(),
    status: Type.Unsafe<string>({ type: 'string', enum: ['running', 'completed'] }),
    user: Type.Object({ id: Type.Integer() }),
    created_at: Timestamp,
    updated_at: Timestamp,
    results: Type.Array(
      Type.Object({
        recipe: Type.Object({ id: Type.Integer(), name: Type.String() }),
        test_case: Type.Object({ id: Type.String(), name: Type.String() }),
        job: Type.Union([Type.Object({ id: Type.String(), status: Type.String() }), Type.Null()]),
        status: Type.Unsafe<string>({ type: 'string', enum: ['pending', 'succeeded', 'failed'] }),
        failure: Type.Optional(
          Type.String({ description: 'Why the test case failed: the expectation that did not hold, or the job error' }),
        ),
      }),
    ),
    coverage: Type.Optional(
      Type.Object({ value: Type.Number({ description: "Percentage of the recipes' steps the test cases ran" }) }),
    ),
  }),
});
