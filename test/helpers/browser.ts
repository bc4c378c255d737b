// A real headless browser for tests: Debian's chromium driven by playwright-core (never a
// browser download). Screenshots go to test-results/screenshots/<folder>/ (git-ignored), kept
// after the run for CI to collect. axe-core (the accessibility engine) runs inside the page.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * `hosts` maps hostnames to 127.0.0.1 inside this browser only (chromium's --host-resolver-rules),
 * e.g. a whitelabel studio's domain served by the test gateway.
 */
export async function launchBrowser(opts: { hosts?: readonly string[] } = {}): Promise<Browser> {
  const rules = (opts.hosts ?? []).map((h) => `MAP ${h} 127.0.0.1`).join(', ');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Without the background-networking flags chromium tries to reach Google's hosts at start,
    // and this machine's closed network refuses them.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...(rules ? [`--host-resolver-rules=${rules}`] : [])],
  });
}

/** Saves a full-page screenshot as a test artifact and returns its path. */
export async function screenshot(page: Page, folder: string, name: string): Promise<string> {
  const dir = path.join(ROOT, 'test-results', 'screenshots', folder);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Console errors and failed requests of a page, to assert that a page loaded cleanly (CSP included). */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    // a stream the page closed on purpose (the event stream after the terminal state) is not a failure
    if (r.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  return problems;
}

/** Signs an account made by `newAccount` (its password) in through the dashboard's form; the page waits on the overview. */
export async function signIn(browser: Browser, base: string, email: string, password = 'correct horse battery'): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems = pageProblems(page);
  await page.goto(`${base}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return { page, problems };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * axe-core's violations of `impact` serious or critical on the page as it is now. The engine is
 * added as a script tag, so the page's context must bypass its Content-Security-Policy
 * (`browser.newContext({ bypassCSP: true })`); nothing else of the page changes.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.addScriptTag({ path: AXE_SOURCE });
  return page.evaluate<AxeViolation[]>(`(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').split('\\n').slice(1, 2).join('')) }));
  })()`);
}
