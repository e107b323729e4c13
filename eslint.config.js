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
);
