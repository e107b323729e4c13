import { Type } from 'typebox';

export const IntegrationsQuery = Type.Object({
  applications: Type.Optional(
    Type.String({ maxLength: 10_000, description: 'Comma-separated connector names: only those are listed' }),
  ),
});

export const Integration = Type.Object({
  name: Type.String({ description: 'The provider key recipes and connections use' }),
  title: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  source: Type.Union([Type.Literal('built_in'), Type.Literal('saas'), Type.Literal('custom'), Type.String()], {
    description: 'built_in (the engine), saas (a SaaS service), custom (a custom connector of the environment)',
  }),
});

export const IntegrationList = Type.Object({ items: Type.Array(Integration) });
