// Connector icons: a small SVG for each built-in and SaaS connector (its initials on its colour),
// one generic icon for custom connectors and any provider this server does not have. Served from
// this origin (/console/assets/icons/<provider>.svg), shown as <img> so the CSP stays as it is.
import { html, type Html } from '../html.ts';

/** Colours of the services people know by them; the others get one of PALETTE by their name. */
const BRAND: Readonly<Record<string, string>> = {
  airtable: '#1a73a8',
  asana: '#c9464b',
  box: '#0061d5',
  dropbox: '#0061fe',
  github: '#24292f',
  gmail: '#c5221f',
  google_calendar: '#1a73e8',
  google_drive: '#188038',
  google_sheets: '#188038',
  hubspot: '#c9502e',
  jira: '#0052cc',
  salesforce: '#0b76b8',
  slack: '#4a154b',
  slack_bot: '#4a154b',
  shopify: '#4a7a2f',
  stripe: '#635bff',
  teams: '#4b53bc',
  twilio: '#c8102e',
  zendesk: '#03363d',
  zoom: '#0b5cff',
};
const PALETTE = ['#1f6feb', '#8250df', '#bf3989', '#cf222e', '#9a6700', '#1a7f37', '#0a7285', '#57606a', '#6639ba'];

function colourOf(provider: string): string {
  const brand = BRAND[provider];
  if (brand) return brand;
  let hash = 0;
  for (const ch of provider) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length] as string;
}

/** Two letters a person recognises: the initials of a title of several words, else its first two letters. */
export function initialsOf(title: string): string {
  const words = title.split(/[^A-Za-z0-9]+/).filter((w) => w !== '' && !/^(by|for|and|of|the)$/i.test(w));
  const first = words[0] ?? '?';
  const second = words[1];
  const letters = second ? `${first[0]}${second[0]}` : `${first[0]}${first[1] ?? ''}`;
  return `${letters[0]?.toUpperCase() ?? ''}${second ? (letters[1]?.toUpperCase() ?? '') : (letters[1]?.toLowerCase() ?? '')}`;
}

/** The icon of a connector of this server: its initials on its colour, 24 by 24. */
export function connectorIconSvg(provider: string, title: string): string {
  const letters = initialsOf(title).replace(/[^A-Za-z0-9]/g, '');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" role="img"><rect width="24" height="24" rx="5" fill="${colourOf(provider)}"/><text x="12" y="16.2" text-anchor="middle" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="11" font-weight="700" fill="#fff">${letters}</text></svg>`;
}

/** Custom connectors and unknown providers: a plug on grey. */
export const CUSTOM_ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" role="img"><rect width="24" height="24" rx="5" fill="#57606a"/><path d="M9 5v4M15 5v4M7 9h10v3a5 5 0 0 1-10 0zM12 17v3" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>';

export const CUSTOM_ICON_URL = '/console/assets/icons/custom.svg';

/** The URL of a provider's icon (the page's routes know which providers this server has). */
export type IconOf = (provider: string) => string;

/** An icon beside a connector's name: decorative (the name is written next to it). */
export function iconImg(src: string): Html {
  return html`<img class="icon" src="${src}" alt="" width="20" height="20">`;
}
