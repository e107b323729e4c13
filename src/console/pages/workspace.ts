// The API platform (collections, endpoints, clients, access profiles with a secret refreshed and
// shown once), connections (status, never a credential), environment properties and topics.
import { connectionStatus } from './connection.ts';
import type { AccessProfileApi } from '../../api/api_access_profiles/api_access_profiles.store.ts';
import type { ApiClientApi } from '../../api/api_clients/api_clients.store.ts';
import type { CollectionApi } from '../../api/api_collections/api_collections.store.ts';
import type { EndpointApi } from '../../api/api_endpoints/api_endpoints.store.ts';
import type { ConnectionApi } from '../../api/connections/connections.store.ts';
import type { TopicApi } from '../../api/event_streams/event_streams.store.ts';
import type { DeploymentApi } from '../../api/deployments/deployments.store.ts';
import type { RunRequestApi } from '../../api/test_cases/test_cases.store.ts';
import { tagLabels, type TagIndex } from './tags.ts';
import { html, time } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';

export interface ApiPlatformData {
  collections: readonly CollectionApi[] | null;
  endpoints: readonly EndpointApi[] | null;
  clients: readonly ApiClientApi[];
  profiles: readonly AccessProfileApi[];
  canWrite: boolean;
  /** A secret just issued: shown on this page only, never again. */
  issued?: { profile: AccessProfileApi; secret: string } | undefined;
}

function active(on: boolean) {
  return on ? html`<span class="badge ok">active</span>` : html`<span class="badge">inactive</span>`;
}

export function apiPlatformPage(frame: PageFrame, data: ApiPlatformData, csrf: string): string {
  const clientName = new Map(data.clients.map((c) => [c.id, c.name]));
  return page(
    frame,
    html`
${
  data.issued
    ? html`<div class="notice ok" role="status"><p>New secret of <strong>${data.issued.profile.name}</strong>${data.issued.profile.oauth_client_id ? html` (client id <code>${data.issued.profile.oauth_client_id}</code>)` : ''}. Copy it now: it is not shown again.</p>
<p><output class="secret" id="issued-secret">${data.issued.secret}</output></p></div>`
    : ''
}
${
  data.collections === null
    ? ''
    : html`<section aria-labelledby="collections-title"><h2 id="collections-title">Collections</h2>
${
  data.collections.length === 0
    ? html`<p class="muted">No collection.</p>`
    : html`<table><thead><tr><th scope="col">Collection</th><th scope="col">Version</th><th scope="col">URL</th></tr></thead><tbody>
${data.collections.map((c) => html`<tr><td>${c.name}</td><td>${c.version}</td><td><code>${c.url}</code></td></tr>`)}</tbody></table>`
}</section>`
}
${
  data.endpoints === null
    ? ''
    : html`<section aria-labelledby="endpoints-title"><h2 id="endpoints-title">Endpoints</h2>
${
  data.endpoints.length === 0
    ? html`<p class="muted">No endpoint.</p>`
    : html`<table><thead><tr><th scope="col">Endpoint</th><th scope="col">Method</th><th scope="col">URL</th><th scope="col">State</th></tr></thead><tbody>
${data.endpoints.map((e) => html`<tr><td>${e.name}</td><td>${e.method}</td><td><code>${e.url}</code></td><td>${active(e.active)}</td></tr>`)}</tbody></table>`
}</section>`
}
<section aria-labelledby="clients-title"><h2 id="clients-title">Clients</h2>${data.canWrite ? html`<p><a class="button" href="/console/api-platform/clients/new">New API client</a></p>` : ''}
${
  data.clients.length === 0
    ? html`<p class="muted">No API client.</p>`
    : html`<table><thead><tr><th scope="col">Client</th><th scope="col">Description</th><th scope="col">State</th><th scope="col">Created</th></tr></thead><tbody>
${data.clients.map((c) => html`<tr><td><a href="/console/api-platform/clients/${c.id}">${c.name}</a></td><td>${c.description ?? ''}</td><td>${active(c.active)}</td><td>${time(c.created_at)}</td></tr>`)}</tbody></table>`
}</section>
<section aria-labelledby="profiles-title"><h2 id="profiles-title">Access profiles</h2>
${
  data.profiles.length === 0
    ? html`<p class="muted">No access profile.</p>`
    : html`<table><thead><tr><th scope="col">Profile</th><th scope="col">Client</th><th scope="col">Authentication</th><th scope="col">State</th>${data.canWrite ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead><tbody>
${data.profiles.map((p) => html`<tr><td>${p.name}</td><td>${clientName.get(p.api_client_id) ?? p.api_client_id}</td><td>${p.auth_type}</td><td>${active(p.active)}</td>${data.canWrite ? html`<td>${p.auth_type === 'jwt' || p.auth_type === 'oidc' ? html`<span class="muted">no secret</span>` : html`<form method="post" action="/console/api-platform/access-profiles/${p.id}/refresh-secret" class="inline">${csrfField(csrf)}<button type="submit" data-confirm="Issue a new secret for ${p.name}? The old one stops working at once.">Refresh secret<span class="visually-hidden"> of ${p.name}</span></button></form>`}</td>` : ''}</tr>`)}
</tbody></table>`
}</section>`,
  );
}

export function connectionsPage(
  frame: PageFrame,
  connections: readonly ConnectionApi[],
  tags: TagIndex,
  options: { canWrite: boolean; message?: { text: string; kind: 'ok' | 'error' } | undefined },
): string {
  return page(
    frame,
    html`${options.message ? notice(options.message.text, options.message.kind) : ''}${options.canWrite ? html`<p><a class="button" href="/console/connections/new">New connection</a></p>` : ''}${
      connections.length === 0
        ? html`<p class="muted">No connection in this environment.</p>`
        : html`
<table><thead><tr><th scope="col">Connection</th><th scope="col">Application</th><th scope="col">Status</th><th scope="col">Authorized</th><th scope="col">Problem</th></tr></thead><tbody>
${connections.map((c) => html`<tr><td><a href="/console/connections/${c.id}">${c.name}</a>${tagLabels(c.tags, tags)}</td><td>${c.provider}</td><td>${connectionStatus(c)}</td><td>${time(c.authorized_at)}</td><td class="error-text">${c.authorization_error ?? c.connection_lost_reason ?? ''}</td></tr>`)}
</tbody></table>
<p class="muted">Credentials stay encrypted on the server; the console never shows them.</p>`
    }`,
  );
}

export function topicsPage(
  frame: PageFrame,
  topics: readonly TopicApi[],
  options: { canWrite: boolean; message?: { text: string; kind: 'ok' | 'error' } | undefined },
): string {
  return page(
    frame,
    html`${options.message ? notice(options.message.text, options.message.kind) : ''}${options.canWrite ? html`<p><a class="button" href="/console/topics/new">New topic</a></p>` : ''}${
      topics.length === 0
        ? html`<p class="muted">No topic in this environment.</p>`
        : html`
<table><thead><tr><th scope="col">Topic</th><th scope="col">Description</th><th scope="col">Retention</th><th scope="col">Last message</th></tr></thead><tbody>
${topics.map((t) => html`<tr><td><a href="/console/topics/${t.id}">${t.name}</a></td><td>${t.description ?? ''}</td><td>${retention(t.retention)}</td><td>${time(t.last_message_at)}</td></tr>`)}</tbody></table>`
    }`,
  );
}

function retention(seconds: number): string {
  return seconds % 86_400 === 0
    ? `${seconds / 86_400} d`
    : seconds % 3600 === 0
      ? `${seconds / 3600} h`
      : `${seconds} s`;
}

export interface TopicData {
  topic: TopicApi;
  messages: ReadonlyArray<{ message_id: string; time: string; payload: string }>;
  canPublish: boolean;
  message?: { text: string; kind: 'ok' | 'error' } | undefined;
  /** The topic's message schema, shown when it has one. */
  schema?: readonly unknown[] | null | undefined;
  /** The payload to show again in the form after a refusal. */
  draft?: string | undefined;
}

export function topicPage(frame: PageFrame, data: TopicData, csrf: string): string {
  return page(
    frame,
    html`
${data.message ? notice(data.message.text, data.message.kind) : ''}
<dl class="facts"><dt>Retention</dt><dd>${retention(data.topic.retention)}</dd>${data.topic.description ? html`<dt>Description</dt><dd>${data.topic.description}</dd>` : ''}</dl>
${
  data.canPublish
    ? html`<section aria-labelledby="publish-title"><h2 id="publish-title">Publish a test message</h2>
<form method="post" action="/console/topics/${data.topic.id}/publish" class="stack narrow">${csrfField(csrf)}
<label for="payload">Message (a JSON object)</label><textarea id="payload" name="payload" rows="6" maxlength="200000" required>${data.draft ?? '{\n  "hello": "world"\n}'}</textarea>
<button type="submit">Publish</button></form></section>`
    : ''
}
${data.schema && data.schema.length > 0 ? html`<section aria-labelledby="schema-title"><h2 id="schema-title">Message schema</h2><pre>${JSON.stringify(data.schema, null, 2)}</pre></section>` : ''}
<section aria-labelledby="messages-title"><h2 id="messages-title">Latest messages</h2>
${data.messages.length === 0 ? html`<p class="muted">No message retained.</p>` : html`<ol class="lines">${data.messages.map((m) => html`<li class="line"><h3><code>${m.message_id}</code></h3><p class="muted small">${time(m.time)}</p>${payloadBlock(m.payload)}</li>`)}</ol>`}
</section>
${
  data.canPublish
    ? html`<section aria-labelledby="delete-title"><h2 id="delete-title">Delete the topic</h2>
<form method="post" action="/console/topics/${data.topic.id}/delete" class="inline">${csrfField(csrf)}<button type="submit" class="danger" data-confirm="Delete the topic ${data.topic.name} and all its messages?">Delete topic</button></form></section>`
    : ''
}`,
  );
}

function payloadBlock(text: string) {
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Stored as received.
  }
  return shown.length <= 600
    ? html`<pre>${shown}</pre>`
    : html`<details><summary>${shown.length.toLocaleString('en')} characters: show</summary><pre>${shown.slice(0, 200_000)}</pre></details>`;
}

/** The deployments from this environment; `projectNames` by project id (an id is shown when its name is not known). */
export function deploymentsPage(
  frame: PageFrame,
  deployments: readonly DeploymentApi[],
  projectNames: ReadonlyMap<string, string>,
): string {
  return page(
    frame,
    deployments.length === 0
      ? html`<p class="muted">No deployment from this environment.</p>`
      : html`
<table><thead><tr><th scope="col">Deployment</th><th scope="col">Project</th><th scope="col">Build</th><th scope="col">To</th><th scope="col">State</th><th scope="col">By</th><th scope="col">When</th></tr></thead><tbody>
${deployments.map(
  (
    d,
  ) => html`<tr><td>${d.id}${d.description ? html`<div class="muted small">${d.description}</div>` : ''}</td><td>${projectNames.get(d.project_id) ?? d.project_id}</td><td><a href="/console/builds/${d.project_build_id}">Build ${d.project_build_id}</a></td><td>${d.environment_type}</td>
<td><span class="badge ${d.state === 'success' ? 'ok' : d.state === 'failed' ? 'bad' : ''}">${d.state}</span>${d.error ? html`<div class="error-text small">${d.error}</div>` : ''}</td><td>${d.performed_by_name}</td><td>${time(d.created_at)}</td></tr>`,
)}
</tbody></table>`,
  );
}

export function testRunsPage(frame: PageFrame, runs: readonly RunRequestApi[]): string {
  return page(
    frame,
    runs.length === 0
      ? html`<p class="muted">No test run in this environment. Start one with <code>npx switchboard test</code> or <code>POST /api/test_cases/run_requests</code>.</p>`
      : html`
${runs.map((r) => {
  const passed = r.results.filter((x) => x.status === 'succeeded').length;
  return html`<section class="line" aria-labelledby="run-${r.id}"><h2 id="run-${r.id}"><a href="/console/test-runs/${r.id}"><code>${r.id}</code></a> ${runBadge(r.status, r.results.length - passed)}</h2>
<p class="muted small">${time(r.created_at)} · ${passed} of ${r.results.length} passed${r.coverage ? html` · coverage ${r.coverage.value}%` : ''}</p>
${
  r.results.length === 0
    ? ''
    : html`<table><thead><tr><th scope="col">Recipe</th><th scope="col">Test case</th><th scope="col">Result</th></tr></thead><tbody>
${r.results.map((x) => html`<tr><td><a href="/console/recipes/${x.recipe.id}">${x.recipe.name}</a></td><td>${x.test_case.name}</td><td><span class="badge ${x.status === 'succeeded' ? 'ok' : x.status === 'failed' ? 'bad' : ''}">${x.status}</span></td></tr>`)}</tbody></table>`
}</section>`;
})}`,
  );
}

/** A run's state: once completed, whether all its test cases passed, in words as well as colour. */
function runBadge(status: string, notPassed: number) {
  if (status !== 'completed') return html`<span class="badge">${status}</span>`;
  return notPassed === 0
    ? html`<span class="badge ok">completed: all passed</span>`
    : html`<span class="badge bad">completed: ${notPassed} not passed</span>`;
}

function resultBadge(status: string) {
  return html`<span class="badge ${status === 'succeeded' ? 'ok' : status === 'failed' ? 'bad' : ''}">${status === 'succeeded' ? 'passed' : status === 'failed' ? 'failed' : status}</span>`;
}

/** One run request: each test case passed or failed (with why), its job, and the coverage once completed. */
export function testRunPage(frame: PageFrame, run: RunRequestApi): string {
  const passed = run.results.filter((x) => x.status === 'succeeded').length;
  const failed = run.results.filter((x) => x.status === 'failed').length;
  return page(
    frame,
    html`
<dl class="facts">
  <dt>State</dt><dd>${runBadge(run.status, run.results.length - passed)}${run.status === 'running' ? html` <a href="/console/test-runs/${run.id}">Reload</a>` : ''}</dd>
  <dt>Results</dt><dd>${passed} passed, ${failed} failed${run.results.length - passed - failed > 0 ? html`, ${run.results.length - passed - failed} pending` : ''}</dd>
  <dt>Coverage</dt><dd>${run.coverage ? `${run.coverage.value}% of the steps` : html`<span class="muted">when completed</span>`}</dd>
  <dt>Started</dt><dd>${time(run.created_at)}</dd>
</dl>
${
  run.results.length === 0
    ? html`<p class="muted">No test case was selected.</p>`
    : html`<table><thead><tr><th scope="col">Recipe</th><th scope="col">Test case</th><th scope="col">Result</th><th scope="col">Failure</th><th scope="col">Job</th></tr></thead><tbody>
${run.results.map((x) => html`<tr><td><a href="/console/recipes/${x.recipe.id}">${x.recipe.name}</a></td><td>${x.test_case.name}</td><td>${resultBadge(x.status)}</td><td class="error-text">${x.failure ?? ''}</td><td>${x.job ? html`<a href="/console/recipes/${x.recipe.id}/jobs/${encodeURIComponent(x.job.id)}">${x.job.id}</a>` : ''}</td></tr>`)}</tbody></table>`
}
<p><a href="/console/test-runs">All test runs</a></p>`,
  );
}
