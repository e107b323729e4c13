// Test cases of a recipe (contract 16 §6, and our write routes beside it) and run requests
// (16 §2–§3). Every reply is wrapped in `data`.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody } from '../../http/schemas.ts';
import {
  RecipeParams,
  RunBody,
  RunRequest,
  RunRequestParams,
  TestCaseBody,
  TestCaseList,
  TestCaseParams,
  TestCaseResult,
} from './test_cases.schemas.ts';
import {
  createTestCase,
  deleteTestCase,
  getRunRequest,
  getTestCase,
  listTestCases,
  startRunRequest,
  updateTestCase,
} from './test_cases.service.ts';
import type { TestRunner } from './runner.ts';

const tags = ['Test automation'];

export function testCasesRoutes(fastify: FastifyInstance, ctx: ServiceContext, runtime: { tests: TestRunner }): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/recipes/:recipe_id/test_cases',
    {
      config: { privilege: 'test_cases:read' },
      schema: {
        tags,
        summary: 'The test cases of a recipe',
        params: RecipeParams,
        response: { 200: TestCaseList, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => listTestCases(ctx, authOf(request), request.params.recipe_id),
  );

  app.post(
    '/api/recipes/:recipe_id/test_cases',
    {
      config: { privilege: 'test_cases:write' },
      schema: {
        tags,
        summary: 'Add a test case to a recipe: the trigger output to start from, mocked steps, expectations',
        params: RecipeParams,
        body: TestCaseBody,
        response: { 200: TestCaseResult, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => createTestCase(ctx, authOf(request), request.params.recipe_id, request.body ?? {}),
  );

  app.get(
    '/api/recipes/:recipe_id/test_cases/:id',
    {
      config: { privilege: 'test_cases:read' },
      schema: {
        tags,
        summary: 'One test case with its trigger output, mocks and expectations',
        params: TestCaseParams,
        response: { 200: TestCaseResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getTestCase(ctx, authOf(request), request.params.recipe_id, request.params.id),
  );

  app.put(
    '/api/recipes/:recipe_id/test_cases/:id',
    {
      config: { privilege: 'test_cases:write' },
      schema: {
        tags,
        summary: 'Change a test case; fields not sent stay as they are',
        params: TestCaseParams,
        body: TestCaseBody,
        response: { 200: TestCaseResult, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) =>
      updateTestCase(ctx, authOf(request), request.params.recipe_id, request.params.id, request.body ?? {}),
  );

  app.delete(
    '/api/recipes/:recipe_id/test_cases/:id',
    {
      config: { privilege: 'test_cases:write' },
      schema: {
        tags,
        summary: 'Delete a test case',
        params: TestCaseParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteTestCase(ctx, authOf(request), request.params.recipe_id, request.params.id);
      return { success: true };
    },
  );

  app.post(
    '/api/test_cases/run_requests',
    {
      config: { privilege: 'test_cases:write' },
      schema: {
        tags,
        summary: 'Run test cases chosen by exactly one selector; poll the run request until completed',
        body: RunBody,
        response: { 200: RunRequest, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => startRunRequest(ctx, runtime.tests, authOf(request), request.body ?? {}),
  );

  app.get(
    '/api/test_cases/run_requests/:id',
    {
      config: { privilege: 'test_cases:read' },
      schema: {
        tags,
        summary: 'A run request: running, then completed with each result and the coverage',
        params: RunRequestParams,
        response: { 200: RunRequest, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getRunRequest(ctx, authOf(request), request.params.id),
  );
}
