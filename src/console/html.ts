// HTML built from tagged templates: every interpolated value is escaped unless it is already
// Html (made by this module). Arrays are joined, and null, undefined and false render nothing,
// so a page reads as its markup with conditions in place.
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

export type Renderable = Html | string | number | boolean | null | undefined | readonly Renderable[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

function render(value: Renderable): string {
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return (value as readonly Renderable[]).map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0] as string;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] as string);
  return new Html(out);
}

/** A query string from parameters, leaving out empty ones (hrefs are escaped where they are interpolated). */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** An ISO time, formatted in the browser's time zone by console.js; the UTC text until then. */
export function time(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  // The date and the time each kept whole: on a phone a time wraps onto two lines at most.
  const [date, clock = ''] = iso
    .replace(/\.\d+(Z|[+-]\d{2}:\d{2})$/, '$1')
    .replace(/\+00:00$/, 'Z')
    .split('T');
  return clock === ''
    ? html`<time datetime="${iso}">${date}</time>`
    : html`<time datetime="${iso}"><span>${date}</span> <span>${clock}</span></time>`;
}

/** Markup this code assembled from numbers and constants (the chart's bars), never from user data. */
export function trustedMarkup(markup: string): Html {
  return new Html(markup);
}
