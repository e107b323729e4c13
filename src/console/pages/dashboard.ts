// The dashboard: finished jobs per minute (an inline SVG chart), running recipes, recent failures.
import { html, time, trustedMarkup, type Html } from '../html.ts';
import { page, type PageFrame } from '../layout.ts';

export interface DashboardData {
  hours: number;
  now: Date;
  perMinute: ReadonlyArray<{ minute: string; status: string; n: number }>;
  running: ReadonlyArray<{
    id: number;
    name: string;
    last_run_at?: string | undefined;
    job_succeeded_count: number;
    job_failed_count: number;
  }>;
  failures: ReadonlyArray<{
    handle: string;
    recipe_id: number;
    recipe_name: string;
    title: string;
    error: string | null;
    completed_at: string | null;
  }>;
  /** What the role may read: jobs (the chart, failures), recipes (running ones). */
  seesJobs: boolean;
  seesRecipes: boolean;
}

const WIDTH = 720;
const HEIGHT = 180;

/** Stacked bars per minute, succeeded below failed; one bar per minute of the window. */
export function jobsChart(data: Pick<DashboardData, 'hours' | 'now' | 'perMinute'>): Html {
  const minutes = data.hours * 60;
  const end = Math.floor(data.now.getTime() / 60_000);
  const succeeded = new Float64Array(minutes);
  const failed = new Float64Array(minutes);
  for (const row of data.perMinute) {
    const at = Math.floor(Date.parse(`${row.minute}:00.000Z`) / 60_000);
    const slot = minutes - 1 - (end - at);
    if (slot < 0 || slot >= minutes || Number.isNaN(slot)) continue;
    if (row.status === 'succeeded') succeeded[slot] = (succeeded[slot] ?? 0) + row.n;
    else failed[slot] = (failed[slot] ?? 0) + row.n;
  }
  let max = 1;
  let totalOk = 0;
  let totalFailed = 0;
  for (let i = 0; i < minutes; i++) {
    max = Math.max(max, (succeeded[i] ?? 0) + (failed[i] ?? 0));
    totalOk += succeeded[i] ?? 0;
    totalFailed += failed[i] ?? 0;
  }
  const bar = WIDTH / minutes;
  const scale = (HEIGHT - 20) / max;
  const rects: string[] = [];
  for (let i = 0; i < minutes; i++) {
    const ok = (succeeded[i] ?? 0) * scale;
    const bad = (failed[i] ?? 0) * scale;
    const x = (i * bar).toFixed(2);
    if (ok > 0)
      rects.push(
        `<rect class="ok" x="${x}" y="${(HEIGHT - ok).toFixed(2)}" width="${Math.max(bar, 1).toFixed(2)}" height="${ok.toFixed(2)}"/>`,
      );
    if (bad > 0)
      rects.push(
        `<rect class="failed" x="${x}" y="${(HEIGHT - ok - bad).toFixed(2)}" width="${Math.max(bar, 1).toFixed(2)}" height="${bad.toFixed(2)}"/>`,
      );
  }
  const start = new Date((end - minutes + 1) * 60_000).toISOString();
  const label = `Jobs per minute over the last ${data.hours} hours: ${totalOk} succeeded, ${totalFailed} failed; at most ${max === 1 && totalOk + totalFailed === 0 ? 0 : max} in a minute.`;
  // The axes are HTML beside the drawing (the drawing is stretched to the page's width: text in it would be too).
  const top = max === 1 && totalOk + totalFailed === 0 ? 0 : max;
  const hours = Array.from({ length: data.hours }, (_, i) => `${data.hours - i} h ago`);
  return html`<figure class="chart"><div class="plot"><div class="y-axis" aria-hidden="true"><span>${top}</span><span>0</span></div><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}" preserveAspectRatio="none">
<line class="axis" x1="0" y1="${HEIGHT - 0.5}" x2="${WIDTH}" y2="${HEIGHT - 0.5}"/>${trustedMarkup(rects.join(''))}</svg>
<div class="x-axis" aria-hidden="true">${hours.map((h) => html`<span>${h}</span>`)}<span>now</span></div></div>
<figcaption>${label} From ${time(start)} to ${time(data.now.toISOString())}. <span class="key ok">succeeded</span> <span class="key failed">failed</span></figcaption></figure>`;
}

export function dashboardPage(frame: PageFrame, data: DashboardData): string {
  if (!data.seesJobs && !data.seesRecipes)
    return page(
      frame,
      html`<p>Your role may not read recipes or jobs; the sections above are the ones it may use.</p>`,
    );
  return page(
    frame,
    html`
${data.seesJobs ? html`<section aria-labelledby="chart-title"><h2 id="chart-title">Jobs per minute</h2>${jobsChart(data)}</section>` : ''}
<div class="columns">
${
  data.seesRecipes
    ? html`<section aria-labelledby="running-title"><h2 id="running-title">Running recipes</h2>
${
  data.running.length === 0
    ? html`<p class="muted">No recipe is running.</p>`
    : html`<table><thead><tr><th scope="col">Recipe</th><th scope="col">Last job</th><th scope="col" class="num">Succeeded</th><th scope="col" class="num">Failed</th></tr></thead><tbody>
${data.running.map((r) => html`<tr><td><a href="/console/recipes/${r.id}">${r.name}</a></td><td>${time(r.last_run_at)}</td><td class="num">${r.job_succeeded_count}</td><td class="num">${r.job_failed_count}</td></tr>`)}
</tbody></table>`
}</section>`
    : ''
}
${
  data.seesJobs
    ? html`<section aria-labelledby="failures-title"><h2 id="failures-title">Recent failures</h2>
${
  data.failures.length === 0
    ? html`<p class="muted">No failed job.</p>`
    : html`<ul class="plain">${data.failures.map(
        (f) => html`<li>
<a href="/console/recipes/${f.recipe_id}/jobs/${f.handle}">${f.recipe_name}: ${f.title}</a> · ${time(f.completed_at)}
${f.error ? html`<div class="error-text">${f.error.slice(0, 300)}</div>` : ''}</li>`,
      )}</ul>`
}</section>`
    : ''
}
</div>`,
  );
}
