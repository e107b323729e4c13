// An import's applier of connections (import.ts runs one per asset type, in one transaction).
import { findConnectorByProvider } from '../../custom_connectors/custom_connectors.store.ts';
import {
  connectionInFolder,
  connectionNamed,
  connectionNamedForConnector,
  insertConnectionShell,
} from '../import.store.ts';
import { type ImportRun } from './run.ts';
import { connectionProvider } from './custom-adapters.ts';

// Connections: matched by name in their folder; created as shells without credentials.
export async function applyConnections(run: ImportRun): Promise<void> {
  const { trx, pkg, options, env, now, fail, placeOf, byType, name, connectionByZip } = run;
  for (const e of byType('connection')) {
    const provider = connectionProvider(run, e);
    if (options.connectionsMustExist) {
      // A custom connector has a name of its own in each environment: the target's connection is
      // to the connector the package's provider name means there (imported with it, or by alias).
      const connector = await findConnectorByProvider(trx, env, provider);
      const match =
        (await connectionNamed(trx, env, name(e), provider)) ??
        (connector ? await connectionNamedForConnector(trx, env, name(e), connector.id) : undefined);
      if (match) {
        connectionByZip.set(e.path, match.id);
        run.changes.set(e.path, 'unchanged');
      } else
        fail(
          e.path,
          `no connection named "${name(e)}" (${provider}) in the target environment: create it there, with that environment's credentials, and deploy again`,
        );
      continue;
    }
    const folderId = await placeOf(e);
    const existing = await connectionInFolder(trx, env, folderId, name(e));
    if (existing) {
      if (existing.provider !== provider)
        fail(
          e.path,
          `a connection named "${name(e)}" exists in the target with provider ${existing.provider}, not ${provider}`,
        );
      connectionByZip.set(e.path, existing.id);
      // An existing connection is reused as it is: its credentials are the target's own.
      run.changes.set(e.path, 'unchanged');
      continue;
    }
    const row = await insertConnectionShell(trx, pkg.workspace_id, env, folderId, name(e), provider, now);
    connectionByZip.set(e.path, Number(row.id));
    run.changes.set(e.path, 'created');
  }
}
