// A connection's page: its state (never a credential) and, for a role that may change
// connections, Connect (a connector authorized through the provider's OAuth 2.0 redirect) or Test
// connection (one that authenticates with its fields); then the step on the way to the provider.
import type { ConnectionApi } from '../../api/connections/connections.store.ts';
import { isTestedAgainstService } from '../../api/connections/providers.ts';
import { html, time, type Html } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';

export interface ConnectionFacts {
  /** The connector's title, when the catalog knows the provider. */
  connectorTitle: string | null;
  /** Connected through the provider's redirect (Connect) rather than tested with its fields. */
  redirect: boolean;
  canWrite: boolean;
}

/**
 * A connection's status as a badge: `success` only when a test reached the service (an HTTP
 * connection whose fields are complete is "not tested"), `not connected` for a shell.
 */
export function connectionStatus(c: Pick<ConnectionApi, 'authorization_status' | 'provider'>): Html {
  const status = c.authorization_status;
  if (status === 'success' && !isTestedAgainstService(c.provider)) return html`<span class="badge">not tested</span>`;
  return html`<span class="badge ${status === 'success' ? 'ok' : status === 'failed' ? 'bad' : ''}">${status ?? 'not connected'}</span>`;
}

export function connectionPage(
  frame: PageFrame,
  connection: ConnectionApi,
  facts: ConnectionFacts,
  csrf: string,
  message?: { text: string; kind: 'ok' | 'error' },
): string {
  const status = connection.authorization_status;
  const action = facts.redirect ? 'Connect' : 'Test connection';
  return page(
    frame,
    html`${message ? notice(message.text, message.kind) : ''}
<dl class="facts">
<dt>Application</dt><dd>${facts.connectorTitle ?? connection.provider} <code>${connection.provider}</code></dd>
<dt>Status</dt><dd>${connectionStatus(connection)}${status === 'success' && !isTestedAgainstService(connection.provider) ? html` <span class="muted small">Its fields are complete; nothing has reached the host yet: a job's first request will.</span>` : ''}</dd>
<dt>Authorized</dt><dd>${time(connection.authorized_at)}</dd>
<dt>Problem</dt><dd class="error-text">${connection.authorization_error ?? connection.connection_lost_reason ?? ''}</dd>
<dt>Fields</dt><dd>${connection.input_fields.length === 0 ? html`<span class="muted">none</span>` : connection.input_fields.join(', ')}</dd>
</dl>
${
  facts.canWrite && (facts.connectorTitle !== null || connection.provider === 'rest' || connection.provider === 'http')
    ? html`<form method="post" action="/console/connections/${connection.id}/connect">${csrfField(csrf)}<button type="submit">${action}</button></form>`
    : ''
}
${facts.connectorTitle === null && connection.provider !== 'rest' && connection.provider !== 'http' ? html`<p class="muted">No connector for ${connection.provider} on this server: the connection is kept but cannot run here.</p>` : ''}
${
  facts.canWrite
    ? html`<p><a class="button" href="/console/connections/${connection.id}/edit">Edit connection</a></p>
<form method="post" action="/console/connections/${connection.id}/delete">${csrfField(csrf)}<button type="submit" class="danger" data-confirm="Delete the connection ${connection.name}? Recipes that use it fail until they get another.">Delete connection</button></form>`
    : ''
}
<p><a href="/console/connections">All connections</a></p>
<p class="muted">Credentials stay encrypted on the server; the console never shows them.</p>`,
  );
}

/** On the way to the provider: a plain navigation (a form may only post to this origin). */
export function toProviderPage(frame: PageFrame, connectorTitle: string, url: string): string {
  const markup = page(
    frame,
    html`<p>Sign in to ${connectorTitle} and allow access; you come back here afterwards.</p>
<p><a class="button" id="continue" href="${url}">Continue to ${connectorTitle}</a></p>`,
  );
  return markup.replace('<head>', html`<head><meta http-equiv="refresh" content="0;url=${url}">`.text);
}
