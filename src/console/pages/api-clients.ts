// API clients of the API platform (as /api/v2/api_clients): a new client with the collections it
// may call, a client's keys, a key issued with its secret shown once, a key revoked.
import type { FieldErrors } from '../../errors.ts';
import type { ApiClientV2Api } from '../../api/api_clients/api_clients_v2.service.ts';
import type { CollectionApi } from '../../api/api_collections/api_collections.store.ts';
import { html, time } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';
import { field, fieldProblems, problemsOf, refusalNotice, type Refusal } from './form-fields.ts';

/** The authentication a client made here uses: a key's token sent as `API-TOKEN`, or OAuth 2.0 client credentials. */
export const CLIENT_AUTH_TYPES = { token: 'Auth token (API-TOKEN header)', oauth2: 'OAuth 2.0 client credentials' };
export type ClientAuthType = keyof typeof CLIENT_AUTH_TYPES;

export interface ClientDraft {
  name: string;
  description: string;
  auth_type: ClientAuthType;
  collection_ids: readonly number[];
}

export function apiClientNewPage(
  frame: PageFrame,
  collections: readonly CollectionApi[],
  draft: ClientDraft,
  csrf: string,
  refusal?: Refusal,
): string {
  const errors: FieldErrors | undefined = refusal?.errors;
  const collectionProblems = problemsOf(errors, 'api_collection_ids');
  return page(
    frame,
    html`${refusalNotice(refusal)}
<p><a href="/console/api-platform">API platform</a></p>
<form method="post" action="/console/api-platform/clients/new" class="stack narrow" novalidate>${csrfField(csrf)}
${field({ id: 'client-name', name: 'name', label: 'Name', value: draft.name, errors, required: true, maxlength: 255 })}
${field({ id: 'client-description', name: 'description', label: 'Description', value: draft.description, errors, rows: 2, maxlength: 10_000 })}
<fieldset class="stack"><legend>Authentication</legend>
${(Object.keys(CLIENT_AUTH_TYPES) as ClientAuthType[]).map((a) => html`<label><input type="radio" name="auth_type" value="${a}"${a === draft.auth_type ? html` checked` : ''}> ${CLIENT_AUTH_TYPES[a]}</label>`)}
${fieldProblems('client-auth', 'Authentication', problemsOf(errors, 'auth_type'))}
</fieldset>
<fieldset class="stack"${collectionProblems.length > 0 ? html` aria-describedby="client-collections-error"` : ''}><legend>Collections it may call</legend>
${fieldProblems('client-collections', 'Collections', collectionProblems)}
${collections.length === 0 ? html`<p class="muted">No collection in this environment: a client without one can call nothing.</p>` : collections.map((c) => html`<label><input type="checkbox" name="collection_${c.id}" value="1"${draft.collection_ids.includes(c.id) ? html` checked` : ''}> ${c.name} <span class="muted small">${c.version}</span></label>`)}
</fieldset>
<button type="submit">Create client</button></form>`,
  );
}

export interface ClientData {
  client: ApiClientV2Api;
  canWrite: boolean;
  message?: { text: string; kind: 'ok' | 'error' } | undefined;
  /** A key just issued: its secret, shown in this reply only. */
  issued?: { name: string; secret: string; oauthClientId?: string | undefined } | undefined;
  keyName?: string;
  refusal?: Refusal | undefined;
}

export function apiClientPage(frame: PageFrame, data: ClientData, csrf: string): string {
  const { client } = data;
  const keys = client.api_keys ?? [];
  const base = `/console/api-platform/clients/${client.id}`;
  return page(
    frame,
    html`${data.message ? notice(data.message.text, data.message.kind) : ''}${refusalNotice(data.refusal)}
${
  data.issued
    ? html`<div class="notice ok" role="status"><p>Key <strong>${data.issued.name}</strong> issued${data.issued.oauthClientId ? html` (client id <code>${data.issued.oauthClientId}</code>)` : ''}. Copy its secret now: it is not shown again.</p>
<p><output class="secret" id="issued-secret">${data.issued.secret}</output></p></div>`
    : ''
}
<p><a href="/console/api-platform">API platform</a></p>
<dl class="facts"><dt>Authentication</dt><dd>${client.auth_type}</dd>${client.description ? html`<dt>Description</dt><dd>${client.description}</dd>` : ''}
<dt>Collections</dt><dd>${client.api_collections.length === 0 ? html`<span class="muted">none</span>` : client.api_collections.map((c, i) => html`${i > 0 ? ', ' : ''}${c.name}`)}</dd>
<dt>Created</dt><dd>${time(client.created_at)}</dd></dl>
<section aria-labelledby="keys-title"><h2 id="keys-title">Keys</h2>
${
  keys.length === 0
    ? html`<p class="muted">No key: the client can call nothing yet.</p>`
    : html`<div class="scroll"><table><thead><tr><th scope="col">Key</th><th scope="col">Token</th><th scope="col">State</th><th scope="col">Since</th>${data.canWrite ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead><tbody>
${keys.map(
  (k) =>
    html`<tr><td>${k.name}</td><td><code>${k.auth_token}</code></td><td>${k.active ? 'active' : 'inactive'}</td><td>${time(k.active_since)}</td>${
      data.canWrite
        ? html`<td><form method="post" action="${base}/keys/${k.id}/revoke" class="inline">${csrfField(csrf)}<button type="submit" class="link danger" data-confirm="Revoke the key ${k.name}? Calls with it are refused at once.">Revoke<span class="visually-hidden"> key ${k.name}</span></button></form></td>`
        : ''
    }</tr>`,
)}</tbody></table></div>`
}
${
  data.canWrite
    ? html`<h3 id="issue-title">Issue a key</h3>
<form method="post" action="${base}/keys" class="stack narrow" novalidate aria-labelledby="issue-title">${csrfField(csrf)}
${field({ id: 'key-name', name: 'name', label: 'Name', value: data.keyName, errors: data.refusal?.errors, required: true, maxlength: 255 })}
<button type="submit">Issue key</button></form>`
    : ''
}</section>`,
  );
}
