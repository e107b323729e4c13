// Lint: typescript-eslint's recommended rules plus the house boundaries of STYLE.md.
import tseslint from 'typescript-eslint';

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
    // Only routes, src/http, app.ts and server.ts speak HTTP; services and stores never see a request.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.routes.ts', 'src/http/**', 'src/app.ts', 'src/server.ts', 'src/**/*.test.ts'],
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
      'src/gateway/jwks.ts',
      'src/cli-http.ts',
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
);
