// Builds: the environment's builds (of one project or all) with their state, starting a build of
// a project, and one build's page: what it holds, its deployments, deploy to test or prod.
import type { Asset } from '../../api/export_manifests/assets.ts';
import type { DeploymentApi } from '../../api/deployments/deployments.store.ts';
import type { BuildListItem } from '../../api/project_builds/project_builds.service.ts';
import type { ProjectApi } from '../../api/projects/projects.store.ts';
import { html, query, time, type Html } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';

export function buildState(state: string): Html {
  return html`<span class="badge ${state === 'success' ? 'ok' : state === 'failed' ? 'bad' : ''}">${state}</span>`;
}

export interface BuildsData {
  builds: readonly BuildListItem[];
  /** The projects to pick from; null when the role may not list projects (an id is typed instead). */
  projects: readonly ProjectApi[] | null;
  projectId?: number | undefined;
  page: number;
  hasMore: boolean;
  /** The role may start builds, and this is the development environment. */
  canBuild: boolean;
  message?: { text: string; kind: 'ok' | 'error' | 'pending' } | undefined;
}

export function buildsPage(frame: PageFrame, data: BuildsData, csrf: string): string {
  const projectPicker = (id: string, withAny: boolean) =>
    data.projects === null
      ? html`<input id="${id}" name="project_id" inputmode="numeric" pattern="[0-9]*" maxlength="15" value="${withAny ? (data.projectId ?? '') : ''}"${withAny ? '' : html` required`}>`
      : html`<select id="${id}" name="project_id"${withAny ? '' : html` required`}>${withAny ? html`<option value="">Any</option>` : ''}${data.projects.map((p) => html`<option value="${p.id}"${withAny && p.id === data.projectId ? html` selected` : ''}>${p.name}</option>`)}</select>`;
  return page(
    frame,
    html`
${data.message ? notice(data.message.text, data.message.kind) : ''}
<form method="get" action="/console/builds" class="filters" role="search">
  <label for="filter-project">Project</label> ${projectPicker('filter-project', true)}
  <button type="submit">Filter</button>
</form>
${
  data.builds.length === 0
    ? html`<p class="muted">No build here.</p>`
    : html`<table><thead><tr><th scope="col">Build</th><th scope="col">Project</th><th scope="col">State</th><th scope="col">Description</th><th scope="col">By</th><th scope="col">When</th></tr></thead><tbody>
${data.builds.map((b) => html`<tr><td><a href="/console/builds/${b.id}">Build ${b.id}</a></td><td>${b.project_name}</td><td>${buildState(b.state)}${b.error ? html`<div class="error-text small">${b.error}</div>` : ''}</td><td>${b.description ?? ''}</td><td>${b.performed_by_name}</td><td>${time(b.created_at)}</td></tr>`)}
</tbody></table>`
}
<nav class="pager" aria-label="Pages">${data.page > 1 ? html`<a href="/console/builds${query({ project_id: data.projectId, page: data.page - 1 })}">Previous page</a>` : ''}
${data.hasMore ? html`<a href="/console/builds${query({ project_id: data.projectId, page: data.page + 1 })}">Next page</a>` : ''}</nav>
${
  data.canBuild
    ? html`<section aria-labelledby="build-title"><h2 id="build-title">Build a project</h2>
<form method="post" action="/console/builds" class="stack narrow">${csrfField(csrf)}
<label for="build-project">Project${data.projects === null ? ' id' : ''}</label>${projectPicker('build-project', false)}
<label for="build-description">Description (optional)</label><input id="build-description" name="description" maxlength="10000">
<label class="check"><input type="checkbox" name="include_test_cases" value="true"> Include test cases</label>
<label class="check"><input type="checkbox" name="include_data" value="true"> Include the rows of lookup and data tables (they replace the target's)</label>
<button type="submit">Start build</button></form></section>`
    : ''
}`,
  );
}

export interface BuildData {
  build: BuildListItem;
  assets: readonly Asset[];
  deployments: readonly DeploymentApi[];
  /** The role may deploy, and this is the development environment. */
  canDeploy: boolean;
  message?: { text: string; kind: 'ok' | 'error' | 'pending' } | undefined;
}

/** What became of a deployment started from this page: said as it stands, never a stale success. */
export function deploymentNotice(d: Pick<DeploymentApi, 'id' | 'state' | 'environment_type' | 'error'>): {
  text: string;
  kind: 'ok' | 'error' | 'pending';
} {
  if (d.state === 'success') return { text: `Deployment ${d.id} to ${d.environment_type} succeeded.`, kind: 'ok' };
  if (d.state === 'failed')
    return {
      text: `Deployment ${d.id} to ${d.environment_type} failed: ${d.error ?? 'no reason given'}`,
      kind: 'error',
    };
  return {
    text: `Deployment ${d.id} to ${d.environment_type} started: ${d.state}. Reload this page to see how it ends.`,
    kind: 'pending',
  };
}

export function buildPage(frame: PageFrame, data: BuildData, csrf: string): string {
  const b = data.build;
  const held = data.assets.filter((a) => a.checked !== false && !a.unreachable);
  return page(
    frame,
    html`
${data.message ? notice(data.message.text, data.message.kind) : ''}
<p><a href="/console/builds${query({ project_id: b.project_id })}">Builds of ${b.project_name}</a></p>
<dl class="facts">
  <dt>State</dt><dd>${buildState(b.state)}</dd>
  <dt>Project</dt><dd>${b.project_name}</dd>
  ${b.description ? html`<dt>Description</dt><dd>${b.description}</dd>` : ''}
  <dt>Test cases</dt><dd>${b.include_test_cases ? 'included' : 'not included'}</dd>
  <dt>By</dt><dd>${b.performed_by_name}</dd>
  <dt>Started</dt><dd>${time(b.created_at)}</dd>
  <dt>Updated</dt><dd>${time(b.updated_at)}</dd>
  ${b.error ? html`<dt>Error</dt><dd class="error-text">${b.error}</dd>` : ''}
</dl>
${
  data.canDeploy && b.state === 'success'
    ? html`<section aria-labelledby="deploy-title"><h2 id="deploy-title">Deploy this build</h2>
<form method="post" action="/console/builds/${b.id}/deploy" class="stack narrow">${csrfField(csrf)}
<label for="deploy-target">To</label><select id="deploy-target" name="environment_type"><option value="test">test</option><option value="prod">prod</option></select>
<label for="deploy-description">Description (optional)</label><input id="deploy-description" name="description" maxlength="10000">
<button type="submit" data-confirm="Deploy build ${b.id} of ${b.project_name}? Running recipes of the target restart on the new version.">Deploy</button></form></section>`
    : data.canDeploy
      ? html`<p class="muted">A build can be deployed once it has succeeded.</p>`
      : ''
}
<section aria-labelledby="assets-title"><h2 id="assets-title">What it holds</h2>
${
  held.length === 0
    ? html`<p class="muted">No asset.</p>`
    : html`<table><thead><tr><th scope="col">Asset</th><th scope="col">Type</th><th scope="col">Folder</th></tr></thead><tbody>
${held.map((a) => html`<tr><td>${a.name}</td><td>${a.type.replace(/_/g, ' ')}</td><td>${a.absolute_path || a.folder}</td></tr>`)}</tbody></table>`
}</section>
<section aria-labelledby="deployments-title"><h2 id="deployments-title">Deployments</h2>
${
  data.deployments.length === 0
    ? html`<p class="muted">Not deployed yet.</p>`
    : html`<table><thead><tr><th scope="col">Deployment</th><th scope="col">To</th><th scope="col">State</th><th scope="col">By</th><th scope="col">When</th></tr></thead><tbody>
${data.deployments.map((d) => html`<tr><td>${d.id}${d.description ? html`<div class="muted small">${d.description}</div>` : ''}</td><td>${d.environment_type}</td><td>${buildState(d.state)}${d.error ? html`<div class="error-text small">${d.error}</div>` : ''}</td><td>${d.performed_by_name}</td><td>${time(d.created_at)}</td></tr>`)}
</tbody></table>`
}</section>`,
  );
}
