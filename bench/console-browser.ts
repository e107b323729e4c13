// The console in Debian's Chromium for `npm run bench -- console`: the recipe editor's time to
// interactive (navigation start until editor.js has wired the page and filled the pickers: it sets
// <html data-editor="ready">), on a cold cache (a new browser context each load) and a warm one
// (reloads in one context), and the editor's catalog search as it is typed (input event to the
// next frame drawn).
import fs from 'node:fs';
import os from 'node:os';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

// Runs before the page's scripts: notes when editor.js marks the page ready.
const READY_WATCH = `(() => {
  const watch = new MutationObserver(() => {
    if (document.documentElement && document.documentElement.getAttribute('data-editor') === 'ready') {
      window.__editorReady = performance.now();
      watch.disconnect();
    }
  });
  watch.observe(document, { attributes: true, subtree: true, attributeFilter: ['data-editor'] });
})();`;

export interface Loads {
  /** Navigation start to editor ready, ms. */
  ready: number[];
  /** Navigation start to DOMContentLoaded's end, ms. */
  domContentLoaded: number[];
  /** Bytes the browser received (the resources' transfer sizes, the page's included). */
  transferred: number[];
}

export function chromiumAvailable(): boolean {
  return fs.existsSync(CHROMIUM);
}

export async function openChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

async function contextWith(browser: Browser, base: string, cookie: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: `${base}/console/` }]);
  await context.addInitScript(READY_WATCH);
  return context;
}

async function loadOnce(
  context: BrowserContext,
  url: string,
  until: 'editor' | 'load' = 'editor',
): Promise<{ ready: number; dcl: number; bytes: number }> {
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  const response = await page.goto(url, { waitUntil: 'load' });
  if (response?.status() !== 200) throw new Error(`${url}: ${response?.status()}`);
  // Polled through the protocol (a predicate evaluated in the page would need 'unsafe-eval'); the
  // time is the one the page noted, so the polling's pace does not change it.
  const deadline = Date.now() + 30_000;
  while (until === 'editor' && ((await page.evaluate('window.__editorReady === undefined')) as boolean)) {
    if (Date.now() > deadline) throw new Error(`${url}: the editor never said ready`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const figures = (await page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const resources = performance.getEntriesByType('resource');
    return {
      ready: ${until === 'editor' ? 'window.__editorReady' : 'nav.loadEventEnd'},
      dcl: nav.domContentLoadedEventEnd,
      bytes: nav.transferSize + resources.reduce((n, r) => n + r.transferSize, 0),
    };
  })()`)) as { ready: number; dcl: number; bytes: number };
  if (problems.length > 0) throw new Error(`${url}: ${problems.join('; ')}`);
  page.removeAllListeners('pageerror');
  return figures;
}

/**
 * `loads` first loads, each in a new context (nothing cached), then `loads` reloads in one context.
 * `until: 'load'` times a page without the editor's script to its load event's end: the baseline.
 */
export async function editorLoads(
  browser: Browser,
  base: string,
  cookie: string,
  url: string,
  loads: number,
  until: 'editor' | 'load' = 'editor',
): Promise<{ cold: Loads; warm: Loads }> {
  const cold: Loads = { ready: [], domContentLoaded: [], transferred: [] };
  const warm: Loads = { ready: [], domContentLoaded: [], transferred: [] };
  for (let i = 0; i < loads; i++) {
    const context = await contextWith(browser, base, cookie);
    try {
      const once = await loadOnce(context, base + url, until);
      cold.ready.push(once.ready);
      cold.domContentLoaded.push(once.dcl);
      cold.transferred.push(once.bytes);
    } finally {
      await context.close();
    }
  }
  const context = await contextWith(browser, base, cookie);
  try {
    await loadOnce(context, base + url, until);
    for (let i = 0; i < loads; i++) {
      const once = await loadOnce(context, base + url, until);
      warm.ready.push(once.ready);
      warm.domContentLoaded.push(once.dcl);
      warm.transferred.push(once.bytes);
    }
  } finally {
    await context.close();
  }
  return { cold, warm };
}

/**
 * The catalog of icons of a new step filtered as it is typed: for each query, the time from the
 * input event to the next frame, and how many applications stay shown.
 */
export async function catalogFilter(
  browser: Browser,
  base: string,
  cookie: string,
  queries: readonly string[],
): Promise<Array<{ query: string; ms: number; shown: number; all: number }>> {
  const context = await contextWith(browser, base, cookie);
  try {
    const page = await context.newPage();
    await page.goto(`${base}/console/recipes/new`, { waitUntil: 'load' });
    await page.getByRole('button', { name: '+ Action' }).first().click();
    await page.locator('details.catalog summary').first().click();
    const out = [];
    for (const query of queries)
      out.push({
        query,
        ...((await page.evaluate(`(async (q) => {
          const input = document.querySelector('input[data-catalog-filter]');
          const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
          input.value = '';
          input.dispatchEvent(new Event('input', { bubbles: true }));
          await frame();
          const t0 = performance.now();
          input.value = q;
          input.dispatchEvent(new Event('input', { bubbles: true }));
          await frame();
          const items = [...document.querySelectorAll('ul.catalog-grid li')];
          return { ms: performance.now() - t0, shown: items.filter((li) => !li.hidden).length, all: items.length };
        })(${JSON.stringify(query)})`)) as { ms: number; shown: number; all: number }),
      });
    return out;
  } finally {
    await context.close();
  }
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;

/**
 * The same-run baseline beside the editor's time: the sign-in page (the console's layout,
 * stylesheet and script, no editor) to its load event's end, loaded the same way just before in
 * the same browser. What the editor takes beyond it is the editor's; the rest is the machine's load.
 */
export function baselineLine(baseline: { cold: Loads; warm: Loads }, editor: { cold: Loads; warm: Loads }): string {
  const b = baseline.cold.ready;
  return `  baseline in the same run (the sign-in page to its load event's end, loaded the same way): first load ${median(b).toFixed(0)} ms (range ${Math.min(...b).toFixed(0)}–${Math.max(...b).toFixed(0)}), cached ${median(baseline.warm.ready).toFixed(0)} ms; the editor beyond it: first load ${(median(editor.cold.ready) - median(b)).toFixed(0)} ms, cached ${(median(editor.warm.ready) - median(baseline.warm.ready)).toFixed(0)} ms; load average ${os.loadavg()[0]?.toFixed(1)}`;
}
