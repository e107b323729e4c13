// The frame of every console page: head (no inline script or style: the CSP allows only the
// project's own files), the navigation a role may use, the signed-in footer with sign-out.
import type { Privilege } from '../auth/privileges.ts';
import { html, type Html, type Renderable } from './html.ts';

export interface PageFrame {
  title: string;
  /** Absent on the sign-in and error pages without a session. */
  session?: { environment: string; workspaceId: number; csrf: string; privileges: ReadonlySet<Privilege> };
  /** The navigation entry to mark as current. */
  section?: string;
}

const SECTIONS: ReadonlyArray<{ key: string; label: string; href: string; privilege: Privilege | null }> = [
  { key: 'dashboard', label: 'Dashboard', href: '/console/', privilege: 'jobs:read' },
  { key: 'recipes', label: 'Recipes', href: '/console/recipes', privilege: 'recipes:read' },
  { key: 'lookup-tables', label: 'Lookup tables', href: '/console/lookup-tables', privilege: 'lookup_tables:read' },
  { key: 'data-tables', label: 'Data tables', href: '/console/data-tables', privilege: 'data_tables:read' },
  { key: 'workflow-tasks', label: 'Tasks', href: '/console/workflow-tasks', privilege: 'jobs:read' },
  { key: 'topics', label: 'Topics', href: '/console/topics', privilege: 'event_streams:read' },
  { key: 'connections', label: 'Connections', href: '/console/connections', privilege: 'connections:read' },
  { key: 'api-platform', label: 'API platform', href: '/console/api-platform', privilege: 'api_platform_clients:read' },
  { key: 'properties', label: 'Properties', href: '/console/properties', privilege: 'environment_properties:read' },
  { key: 'builds', label: 'Builds', href: '/console/builds', privilege: 'project_deployments:read' },
  { key: 'deployments', label: 'Deployments', href: '/console/deployments', privilege: 'project_deployments:read' },
  { key: 'test-runs', label: 'Test runs', href: '/console/test-runs', privilege: 'test_cases:read' },
];

/**
 * `scripts`: more of the project's own script files a page needs (the editor's); `fetches`: this
 * origin's resources those scripts fetch at load, asked for while the page is still read.
 */
export function page(
  frame: PageFrame,
  body: Renderable,
  options: { scripts?: readonly string[]; fetches?: readonly string[] } = {},
): string {
  const { session } = frame;
  const nav = session
    ? html`<nav aria-label="Sections"><ul>${SECTIONS.filter(
        (s) => s.privilege === null || session.privileges.has(s.privilege),
      ).map(
        (s) =>
          html`<li><a href="${s.href}"${s.key === frame.section ? html` aria-current="page"` : ''}>${s.label}</a></li>`,
      )}</ul></nav>`
    : '';
  const account = session
    ? html`<div class="account"><span>Workspace ${session.workspaceId} · <strong>${session.environment}</strong></span>
      <form method="post" action="/console/sign-out">${csrfField(session.csrf)}<button type="submit" class="link">Sign out</button></form></div>`
    : '';
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Switchboard</title><link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/console/assets/console.css"><script src="/console/assets/console.js" defer></script>${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}${(options.fetches ?? []).map((href) => html`<link rel="preload" href="${href}" as="fetch" crossorigin>`)}</head>
<body><a class="skip" href="#main">Skip to content</a><header><a class="brand" href="/console/">Switchboard</a>${nav}${account}</header>
<main id="main"><h1>${frame.title}</h1>${body}</main></body></html>`.text
  }`;
}

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

/** A one-line message above a page's content, after a change. */
export function notice(text: string | undefined, kind: 'ok' | 'error' | 'pending' = 'ok'): Html | '' {
  return text ? html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>` : '';
}
