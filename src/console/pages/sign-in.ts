// The sign-in page and the page of an error (no session needed for either).
import { html } from '../html.ts';
import { notice, page, type PageFrame } from '../layout.ts';

export function signInPage(options: { error?: string; next?: string; sessionEnded?: boolean }): string {
  return page(
    { title: 'Sign in' },
    html`
<p>Sign in with a developer API token. The token is exchanged for a session of this browser; it is not kept in the page or the browser.</p>
${notice(options.error, 'error')}${options.sessionEnded && !options.error ? notice('Your session has ended: sign in again.', 'error') : ''}
<form method="post" action="/console/sign-in" class="stack narrow">
  <label for="token">Developer API token</label>
  <input id="token" name="token" type="password" autocomplete="off" required maxlength="512" autofocus>
  ${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : ''}
  <button type="submit">Sign in</button>
</form>
<p class="muted">No token? On the server: <code>npx switchboard tokens create --role Admin</code>.</p>`,
  );
}

export function errorPage(
  frame: Omit<PageFrame, 'title'>,
  status: number,
  message: string,
  requestId?: string,
): string {
  const title =
    status === 404
      ? 'Not found'
      : status === 403
        ? 'Not allowed'
        : status === 401
          ? 'Sign in again'
          : status >= 500
            ? 'Something went wrong'
            : 'That did not work';
  // The generic 404's message is the title again: say what it means instead.
  const said =
    message === title && status === 404
      ? 'Nothing is at this address in this environment: it may have been deleted, or belong to another environment or workspace.'
      : message;
  return page(
    { ...frame, title },
    html`
<p class="notice error" role="alert">${said}</p>
${status === 401 ? html`<p><a href="/console/sign-in">Sign in</a></p>` : html`<p><a href="/console/">Back to the dashboard</a></p>`}
${requestId ? html`<p class="muted">Request id: <code>${requestId}</code></p>` : ''}`,
  );
}
