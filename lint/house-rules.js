// The house's own lint rules (eslint.config.js): which layer may import which (docs/ARCHITECTURE.md).
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * The layers as import rules: a file under `from` may not import a module under any of `forbid`
 * (a folder ends with `/`). Type-only imports count too: a type ties two layers as much as a value.
 * Where a lower layer needs something of a higher one, it declares the interface it needs and the
 * higher one passes an implementation (RecipeRuntime, RecordListener, TestRuntime).
 */
export const LAYERS = [
  {
    from: 'src/db/',
    forbid: [
      'src/api/',
      'src/auth/',
      'src/recipe/',
      'src/engine/',
      'src/gateway/',
      'src/mcp/',
      'src/console/',
      'src/http/',
      'src/oauth2/',
      'src/workspaces/',
      'src/app.ts',
      'src/server.ts',
      'src/cli.ts',
    ],
    why: 'src/db/ is the floor: it knows the databases, nothing of the areas above it',
  },
  {
    from: 'src/recipe/',
    forbid: [
      'src/api/',
      'src/auth/',
      'src/engine/',
      'src/gateway/',
      'src/mcp/',
      'src/console/',
      'src/http/',
      'src/oauth2/',
      'src/workspaces/',
      'src/app.ts',
      'src/server.ts',
      'src/cli.ts',
    ],
    why: 'the recipe language (documents, formulas) is shared by the API and the engine, and depends on neither',
  },
  {
    from: 'src/api/',
    forbid: [
      'src/engine/',
      'src/gateway/',
      'src/mcp/',
      'src/console/',
      'src/oauth2/',
      'src/app.ts',
      'src/server.ts',
      'src/cli.ts',
    ],
    why: 'the areas reach the engine only through an interface they declare (RecipeRuntime, ...), built by buildApp',
  },
  {
    from: 'src/auth/',
    forbid: [
      'src/engine/',
      'src/gateway/',
      'src/mcp/',
      'src/console/',
      'src/http/',
      'src/app.ts',
      'src/server.ts',
      'src/cli.ts',
    ],
    why: 'who is calling is read below every door that asks (the HTTP hook, the token endpoint, the gateway, the console)',
  },
  {
    from: 'src/http/',
    forbid: ['src/api/', 'src/engine/', 'src/gateway/', 'src/mcp/', 'src/console/', 'src/oauth2/'],
    why: 'src/http/ is the HTTP floor every route stands on; it knows no area',
  },
  {
    from: 'src/connectors/',
    forbid: [
      'src/engine/',
      'src/gateway/',
      'src/console/',
      'src/http/',
      'src/oauth2/',
      'src/oauth/',
      'src/app.ts',
      'src/server.ts',
      'src/cli.ts',
    ],
    why: 'connectors are the room below the engine (docs/adr/0019): the engine runs them, the doors reach them through it or the areas',
  },
  {
    from: 'src/engine/',
    forbid: ['src/gateway/', 'src/mcp/', 'src/console/', 'src/oauth2/', 'src/app.ts', 'src/server.ts', 'src/cli.ts'],
    why: 'the engine runs recipes; the doors that start them are above it',
  },
  {
    from: 'src/connectors/sdk/',
    forbid: [
      'src/api/',
      'src/engine/',
      'src/gateway/',
      'src/console/',
      'src/oauth2/',
      'src/http/',
      'src/app.ts',
      'src/server.ts',
      'src/cli.ts',
    ],
    why: 'the Ruby runtime knows no area: its callers lend it what it may reach (a ConnectorHost)',
  },
  {
    from: 'src/console/',
    forbid: ['src/engine/', 'src/gateway/', 'src/mcp/', 'src/oauth2/'],
    why: 'the console calls the same services as the API, and the engine through the interfaces they declare',
  },
];

const layers = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { forbidden: '{{from}} may not import {{target}}: {{why}} (docs/ARCHITECTURE.md).' },
  },
  create(context) {
    const file = path.relative(ROOT, context.filename).split(path.sep).join('/');
    const rules = LAYERS.filter((rule) => file.startsWith(rule.from));
    if (rules.length === 0) return {};
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = path
        .relative(ROOT, path.resolve(path.dirname(context.filename), spec))
        .split(path.sep)
        .join('/');
      for (const rule of rules) {
        const hit = rule.forbid.find((f) => (f.endsWith('/') ? target.startsWith(f) : target === f));
        if (hit)
          context.report({
            node: node.source,
            messageId: 'forbidden',
            data: { from: rule.from, target, why: rule.why },
          });
      }
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { layers } };
