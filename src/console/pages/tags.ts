// Tags as the console's lists show them: a small label per tag, by title, after the asset's name.
import { html, type Html } from '../html.ts';

/** The environment's tags the page needs, by handle. */
export type TagIndex = ReadonlyMap<string, { title: string; description: string | null }>;

export function tagLabels(handles: readonly string[] | undefined, tags: TagIndex): Html {
  const known = (handles ?? []).flatMap((h) => {
    const tag = tags.get(h);
    return tag ? [tag] : [];
  });
  if (known.length === 0) return html``;
  return html` <span class="tags">${known.map(
    (t) => html`<span class="badge tag"${t.description ? html` title="${t.description}"` : ''}>${t.title}</span>`,
  )}</span>`;
}
