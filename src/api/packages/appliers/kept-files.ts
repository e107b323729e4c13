// An import's applier of the files this server does not use (import.ts runs one per asset type, in
// one transaction): each kept as it came in the folder of its directory, replacing a kept file of
// the same name there, so the folder's next export carries it again unchanged.
import { keepFile } from '../kept-files.store.ts';
import type { ImportRun } from './run.ts';

export async function applyKeptFiles(run: ImportRun): Promise<void> {
  const { trx, pkg, env, now, kept, folderOf } = run;
  for (const file of kept)
    await keepFile(trx, {
      workspaceId: pkg.workspace_id,
      environmentId: env,
      folderId: await folderOf(file.dir),
      name: file.name,
      content: file.content,
      now,
    });
}
