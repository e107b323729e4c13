// Lint: typescript-eslint's recommended rules plus the house boundaries of STYLE.md.
import tseslint from 'typescript-eslint';
import house from './lint/house-rules.js';

const QUERY_BUILDER = /^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|withRecursive)$/;

/**
 * Exceptions to the function length: `files` globs, `why` the reason, `max` the raised limit (none:
 * no limit).
 */
export const FUNCTION_LENGTH_EXCEPTIONS = [
  {
    files: ['src/**/*.routes.ts'],
    why:
      "A routes file registers its area's routes in one function: a table of literal paths, each handler a " +
      'few lines, so that a search for a URL lands on it (STYLE.md, "find the code from the URL").',
  },
  {
    files: ['src/engine/sandbox/py-realm.ts'],
    why: 'Python source run inside the interpreter, written as one template: code of another language.',
  },
  {
    files: ['src/connectors/sdk/wasi.ts'],
    why:
      'The WASI preview 1 imports of the Ruby interpreter: a table of system calls, each a few lines over the ' +
      "instance's memory, read side by side with the specification.",
  },
  {
    files: ['bench/**/*.ts'],
    why: "A benchmark's main is its script, read top to bottom: set up, measure each case, print figures.",
  },
  {
    files: [
      'src/engine/compile.ts',
      'src/api/export_manifests/assets.ts',
      'src/auth/access.ts',
      'src/db/pg-notifier.ts',
      'src/engine/connectors/workato_pub_sub.ts',
      'src/connectors/sdk/ruby-sandbox.ts',
    ],
    max: 450,
    why:
      'Still too long, named one by one: factories whose closure holds several jobs (compiling steps; scanning ' +
      'a folder and its dependencies; resolving API platform callers; LISTEN/NOTIFY; topic subscriptions; the Ruby ' +
      "interpreters' pool of worker threads: spawning, queueing calls, restoring by key). Each " +
      'is to be cut into modules that take their state explicitly (STYLE.md, "A subsystem is not one closure"); ' +
      'a new function this long anywhere else fails lint.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Only routes, src/http, the console's kit, app.ts and server.ts speak HTTP; services and stores never see a request.
    files: ['src/**/*.ts'],
    ignores: [
      'src/**/*.routes.ts',
      'src/http/**',
      'src/console/kit.ts',
      'src/app.ts',
      'src/server.ts',
      'src/**/*.test.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['fastify', '@fastify/*'],
              message: 'Only *.routes.ts, src/http/, app.ts and server.ts import Fastify (STYLE.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // config.ts is the only reader of process.env.
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through loadConfig() in src/config.ts.' },
      ],
    },
  },
  {
    // Requests made for users go through the outbound policy (docs/adr/0019): no fetch of its own,
    // and undici only where the policy's dispatcher is passed (the transport, the HTTP connector,
    // the JWKS fetcher); elsewhere only its types.
    files: ['src/**/*.ts'],
    ignores: [
      'src/**/*.test.ts',
      'src/outbound/**',
      'src/connectors/http/**',
      'src/engine/connectors/rest.ts',
      'src/auth/jwks.ts',
      'src/cli-http.ts',
      'src/engine/connectors/file_connector.ts',
      // The Ruby runtime's direct host: a developer's `connector exec` sends requests itself, and
      // a server's Ruby code steps pass it the policy (`outbound`). Model calls (a local model on
      // loopback is their usual server) are not yet sent through the policy: the agents README says so.
      'src/connectors/sdk/direct-host.ts',
      'src/engine/agents/model-client.ts',
    ],
    rules: {
      'no-restricted-globals': [
        'error',
        {
          name: 'fetch',
          message: 'Send requests made for users through src/connectors/http/transport.ts (the outbound policy).',
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'undici',
              allowTypeImports: true,
              message: "Requests made for users go through the outbound policy's dispatcher (src/outbound/).",
            },
          ],
        },
      ],
    },
  },
  {
    // Size. A file holds at most 600 lines: past that it holds more than one job (STYLE.md).
    files: ['**/*.ts', '**/*.js'],
    rules: { 'max-lines': ['error', { max: 600 }] },
  },
  {
    // A function about 150 lines at most, blank lines and comments not counted. Not in tests: a
    // test file's describe block is a list of cases, bounded by the file's limit.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'soak/**/*.ts', 'test/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }] },
  },
  // Exceptions to the guards, each with its reason (test/lint-guards.test.ts keeps every one explained
  // and matching a file).
  ...FUNCTION_LENGTH_EXCEPTIONS.map(({ files, max }) => ({
    files,
    rules: {
      'max-lines-per-function':
        max === undefined ? 'off' : ['error', { max, skipBlankLines: true, skipComments: true }],
    },
  })),
  {
    // Queries live in stores (`*.store.ts`) and in src/db/: a store function per question (STYLE.md).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.store.ts', 'src/db/**', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `CallExpression[callee.property.name=${QUERY_BUILDER}]`,
          message: 'Queries live in *.store.ts (or src/db/): add a store function named for the question.',
        },
        {
          selector: "ImportDeclaration[source.value='kysely'] > ImportSpecifier[imported.name='sql']",
          message: 'Raw SQL lives in *.store.ts (or src/db/): add a store function named for the question.',
        },
      ],
    },
  },
  {
    // Layers: which folder may import which (lint/house-rules.js, docs/ARCHITECTURE.md).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    plugins: { house },
    rules: { 'house/layers': 'error' },
  },
);
