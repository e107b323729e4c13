// An import's applier of the vendor's `project.json` (import.ts runs one per asset type, in one
// transaction): the exported project's description, colour and icon, set on the project the
// package is imported into. Imported into a folder that is not a project's own, the file is kept
// as it came (and exported again with that folder), since there is no project of its own to set.
import { keepFile } from '../kept-files.store.ts';
import { projectLookOfFolder, setProjectLook } from '../../projects/projects.store.ts';
import { PROJECT_FILE } from '../../export_manifests/asset-types.ts';
import { type ImportRun } from './run.ts';

export async function applyProjectFile(run: ImportRun): Promise<void> {
  const { trx, pkg, env, now, target, byType, changes, warn } = run;
  for (const e of byType('project')) {
    const project = target.is_project === 1 ? await projectLookOfFolder(trx, env, target.id) : undefined;
    if (!project) {
      await keepFile(trx, {
        workspaceId: pkg.workspace_id,
        environmentId: env,
        folderId: target.id,
        name: PROJECT_FILE,
        content: new TextEncoder().encode(JSON.stringify(e.body)),
        now,
      });
      warn(e.path, 'kept as it came: the target folder is not a project, so there is no project to describe');
      continue;
    }
    const next = {
      description: typeof e.body.description === 'string' ? e.body.description : project.description,
      color: typeof e.body.color === 'string' ? e.body.color : project.color,
      icon: typeof e.body.icon === 'string' ? e.body.icon : project.icon,
    };
    if (next.description === project.description && next.color === project.color && next.icon === project.icon) {
      changes.set(e.path, 'unchanged');
      continue;
    }
    await setProjectLook(trx, project.id, { ...next, updated_at: now });
    changes.set(e.path, 'updated');
  }
}
