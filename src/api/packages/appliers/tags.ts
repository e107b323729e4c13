// An import's applier of tags (include_tags): a recipe's or connection's tags, by title, are added
// to it; a title the target lacks becomes a new tag there. Without include_tags, tags in the files
// are dropped. Runs after the recipes and connections appliers, which say what each file became.
import { attachTags, findTagByTitle, insertTag, newTagHandle, titleKey } from '../../tags/tags.store.ts';
import { MAX_TITLE } from '../../tags/tags.service.ts';
import { isObj, type ImportRun } from './run.ts';

interface PackageTag {
  title: string;
  description: string | null;
  color: string | null;
}

/** A file's `tags`: objects with a title (as exports write them) or titles; undefined when malformed. */
function packageTags(value: unknown): PackageTag[] | undefined {
  if (!Array.isArray(value) || value.length > 1000) return undefined;
  const out: PackageTag[] = [];
  for (const item of value) {
    const raw = typeof item === 'string' ? { title: item } : isObj(item) ? item : undefined;
    const title = typeof raw?.title === 'string' ? raw.title.trim() : '';
    if (title === '' || title.length > MAX_TITLE || /[\u0000-\u001f\u007f]/.test(title)) return undefined;
    const text = (v: unknown, max: number) => (typeof v === 'string' && v !== '' ? v.slice(0, max) : null);
    const color = text(raw?.color, 32);
    out.push({
      title,
      description: text(raw?.description, 1000),
      color: color !== null && /^[A-Za-z0-9#_-]{1,32}$/.test(color) ? color : null,
    });
  }
  return out;
}

export async function applyTags(run: ImportRun): Promise<void> {
  const { trx, pkg, options, env, now, fail, byType, recipeByZip, connectionByZip } = run;
  if (!options.includeTags) return;
  const tagIds = new Map<string, number>();
  const tagIdOf = async (tag: PackageTag): Promise<number> => {
    const key = titleKey(tag.title);
    const known = tagIds.get(key);
    if (known !== undefined) return known;
    const found =
      (await findTagByTitle(trx, env, tag.title)) ??
      (await insertTag(trx, {
        workspace_id: pkg.workspace_id,
        environment_id: env,
        handle: newTagHandle(),
        title: tag.title,
        description: tag.description,
        color: tag.color,
        created_at: now,
        updated_at: now,
      }));
    tagIds.set(key, found.id);
    return found.id;
  };
  for (const [kind, ids] of [
    ['recipe', recipeByZip],
    ['connection', connectionByZip],
  ] as const) {
    for (const e of byType(kind)) {
      const assetId = ids.get(e.path);
      if (assetId === undefined || e.body.tags === undefined || e.body.tags === null) continue;
      const tags = packageTags(e.body.tags);
      if (tags === undefined) {
        fail(e.path, `tags must be a list of tags, each with a title of 1 to ${MAX_TITLE} characters`);
        continue;
      }
      const wanted: number[] = [];
      for (const tag of tags) wanted.push(await tagIdOf(tag));
      await attachTags(trx, kind, wanted, [assetId], now);
    }
  }
}
