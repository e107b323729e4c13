// Whether an asset that belongs to a project (or to the Home level, projectId null) is in a
// caller's project scope (contract 02 §3). Home-level assets are for all-folders clients only.
import type { Db } from '../../db/types.ts';
import { projectInScope, type AuthContext } from '../../auth/credentials.ts';
import { findProject } from './projects.store.ts';

export async function projectAssetInScope(
  db: Db,
  auth: Pick<AuthContext, 'allFolders' | 'folderIds' | 'environmentId'>,
  projectId: number | null,
): Promise<boolean> {
  if (auth.allFolders) return true;
  if (projectId === null) return false;
  const project = await findProject(db, auth.environmentId, projectId);
  return project !== undefined && projectInScope(auth, project.folder_id);
}
