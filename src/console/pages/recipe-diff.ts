// Two versions of a recipe side by side as a line diff of their JSON (name, description, config,
// code pretty-printed): added lines, removed lines, and long unchanged runs folded to their edges.
import { diffLines } from 'diff';
import { html, time, type Html } from '../html.ts';
import { page, type PageFrame } from '../layout.ts';

export interface VersionContent {
  id: number;
  version_no: number;
  comment: string | null;
  author_name: string | null;
  created_at: string;
  name: string;
  description: string;
  code: string;
  config: unknown;
}

/** Larger versions are not compared here (the diff's cost grows with their size). */
const MAX_COMPARED_CHARS = 400_000;
/** Unchanged lines kept around a change. */
const CONTEXT = 3;

/** A version as the lines a person compares. */
export function versionText(v: Pick<VersionContent, 'name' | 'description' | 'code' | 'config'>): string {
  let code: unknown = v.code;
  try {
    code = JSON.parse(v.code);
  } catch {
    // Not JSON: compared as the text it is.
  }
  return `${JSON.stringify({ name: v.name, description: v.description, config: v.config, code }, null, 2)}\n`;
}

function lines(text: string): string[] {
  const out = text.split('\n');
  if (out.at(-1) === '') out.pop();
  return out;
}

function diffMarkup(before: string, after: string): Html {
  const rows: Html[] = [];
  for (const part of diffLines(before, after)) {
    const partLines = lines(part.value);
    if (part.added) rows.push(...partLines.map((l) => html`<ins>+ ${l}</ins>`));
    else if (part.removed) rows.push(...partLines.map((l) => html`<del>- ${l}</del>`));
    else if (partLines.length > CONTEXT * 2 + 1) {
      rows.push(...partLines.slice(0, CONTEXT).map((l) => html`<span>  ${l}</span>`));
      rows.push(html`<span class="muted">  … ${partLines.length - CONTEXT * 2} unchanged lines</span>`);
      rows.push(...partLines.slice(-CONTEXT).map((l) => html`<span>  ${l}</span>`));
    } else rows.push(...partLines.map((l) => html`<span>  ${l}</span>`));
  }
  return html`<pre class="diff">${rows}</pre>`;
}

export function recipeDiffPage(
  frame: PageFrame,
  recipe: { id: number; name: string },
  versions: ReadonlyArray<{ id: number; version_no: number }>,
  from: VersionContent,
  to: VersionContent,
): string {
  const before = versionText(from);
  const after = versionText(to);
  const picker = (name: string, label: string, chosen: number) =>
    html`<label>${label} <select name="${name}">${versions.map((v) => html`<option value="${v.id}"${v.id === chosen ? html` selected` : ''}>Version ${v.version_no}</option>`)}</select></label>`;
  const facts = (v: VersionContent) =>
    html`<li>Version ${v.version_no}: ${time(v.created_at)}${v.author_name ? ` by ${v.author_name}` : ''}${v.comment ? html` · “${v.comment}”` : ''}</li>`;
  return page(
    frame,
    html`<p><a href="/console/recipes/${recipe.id}">${recipe.name}</a></p>
<form method="get" action="/console/recipes/${recipe.id}/versions/diff" class="filters">${picker('from', 'From', from.id)} ${picker('to', 'To', to.id)} <button type="submit">Compare</button></form>
<ul class="plain">${facts(from)}${facts(to)}</ul>
${
  before.length + after.length > MAX_COMPARED_CHARS
    ? html`<p class="muted">These versions are too large to compare here (over ${MAX_COMPARED_CHARS.toLocaleString('en')} characters together): read them through <code>GET /api/recipes/${recipe.id}/versions/:id</code>.</p>`
    : before === after
      ? html`<p class="muted">No difference.</p>`
      : diffMarkup(before, after)
}`,
  );
}
