// Real headless Chromium (/usr/bin/chromium, driven by playwright-core)
// against the app serving the built frontend. Shopify's CDN scripts are
// replaced by local stand-ins through request routing (test/browser/stand-ins):
// App Bridge's session token comes from sessionToken() here, signed with the
// app's API secret, exactly what the backend verifies.
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT, TMP_DIR } from './paths.ts';
import { sessionToken } from './session-token.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(ROOT, 'test-output', 'screenshots');
/** Where the README links the screenshots from. */
export const DOCS_SCREENSHOT_DIR = join(ROOT, 'docs', 'screenshots');
const FRONTEND = join(ROOT, 'web', 'frontend');
const DIST_INDEX = join(FRONTEND, 'dist', 'index.html');
const STAND_INS = join(ROOT, 'test', 'browser', 'stand-ins');
/** The languages and catalogues the bundle includes. */
const I18N = join(ROOT, 'web', 'i18n');

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((f) => newestMtime(join(path, f))));
}

/** Builds web/frontend (vite) when dist is missing or older than its sources; one builder at a time. */
export async function ensureFrontendBuilt(): Promise<void> {
  const stale = () =>
    !existsSync(DIST_INDEX) ||
    statSync(DIST_INDEX).mtimeMs < Math.max(...[...['src', 'index.html', 'vite.config.ts'].map((f) => join(FRONTEND, f)), I18N].map((f) => newestMtime(f)));
  if (!stale()) return;
  mkdirSync(TMP_DIR, { recursive: true });
  const lock = join(TMP_DIR, 'frontend-build.lock');
  for (let i = 0; ; i++) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch {
      if (i > 600) rmSync(lock, { force: true }); // a crashed builder's lock (60 s)
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    if (!stale()) return;
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', join(FRONTEND, 'vite.config.ts')], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`frontend build failed:\n${r.stdout}\n${r.stderr}`);
  } finally {
    rmSync(lock, { force: true });
  }
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface AdminPage {
  page: Page;
  context: BrowserContext;
  /** Uncaught page errors and console errors, to assert there were none. */
  errors: string[];
  /** Opens an app path the way the admin iframe loads it (?shop=&host=&embedded=1). */
  open(path: string): Promise<void>;
  close(): Promise<void>;
}

export const APP_BRIDGE_URL = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';
export const POLARIS_URL = 'https://cdn.shopify.com/shopifycloud/polaris.js';

export async function openAdmin(
  browser: Browser, appUrl: string, shop: string,
  opts: { width?: number; height?: number; /** Where session tokens come from (default: signed here with the test secret). */ sessionToken?: () => string | Promise<string> } = {},
): Promise<AdminPage> {
  const context = await browser.newContext({ viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 }, deviceScaleFactor: 1 });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: appUrl });
  const errors: string[] = [];
  const app = new URL(appUrl);
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url === APP_BRIDGE_URL) return route.fulfill({ status: 200, contentType: 'text/javascript', body: readFileSync(join(STAND_INS, 'app-bridge.js'), 'utf8') });
    if (url === POLARIS_URL) return route.fulfill({ status: 200, contentType: 'text/javascript', body: readFileSync(join(STAND_INS, 'polaris.js'), 'utf8') });
    if (new URL(url).host === app.host) return route.continue();
    errors.push(`unexpected request to ${url}`);
    return route.abort('blockedbyclient');
  });
  // What App Bridge's shopify.idToken() resolves to: a fresh session token for this shop.
  await context.exposeFunction('__standInSessionToken', opts.sessionToken ?? (() => sessionToken(shop)));
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // 4xx answers the page handles (e.g. 422 field errors) are logged by Chromium as "Failed to load resource"; 5xx are caught below.
    if (m.type() === 'error' && !/favicon|Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 500) errors.push(`HTTP ${r.status()} from ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  const host = Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url');
  return {
    page,
    context,
    errors,
    async open(path: string) {
      const [p, q] = path.split('?');
      const params = new URLSearchParams(q);
      params.set('shop', shop);
      params.set('host', host);
      params.set('embedded', '1');
      await page.goto(`${appUrl}${p}?${params}`);
    },
    close: () => context.close(),
  };
}

/** The toasts the page gave App Bridge so far, as [message, isError]: a record that stays after a toast folds away (4 s on screen). */
export function toastsShown(page: Page): Promise<Array<[string, boolean]>> {
  return page.evaluate(() => (globalThis as any).__standInToasts.map((t: { message: string; isError: boolean }) => [t.message, t.isError]));
}

/**
 * Waits until the page has shown this toast (after the first `after` toasts, for a message
 * shown more than once). Reads the stand-in's record, not the screen: a toast is
 * on screen for 4 s only, which a loaded machine can miss between two polls.
 */
export async function waitForToast(page: Page, message: string, opts: { isError?: boolean; after?: number } = {}): Promise<void> {
  await page.waitForFunction(
    ([m, isError, after]) => (globalThis as any).__standInToasts.slice(after).some((t: { message: string; isError: boolean }) => t.message === m && t.isError === isError),
    [message, opts.isError ?? false, opts.after ?? 0] as const,
  );
}

/**
 * Writes test-output/screenshots/<name>.png. With UPDATE_SCREENSHOTS=1
 * (`npm run docs:screenshots`) it also refreshes docs/screenshots/ for the
 * README; a normal test run never touches tracked files.
 */
export async function screenshot(page: Page, name: string, opts: { /** false for a page without the admin stand-ins (its CSP refuses the injected style). */ adminStandIns?: boolean } = {}): Promise<string> {
  const standIns = opts.adminStandIns ?? true;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = join(SCREENSHOT_DIR, `${name}.png`);
  // Let fonts and pending renders settle; hide transient toasts.
  await page.evaluate(() => (globalThis as any).document.fonts?.ready);
  if (standIns) await page.addStyleTag({ content: '#stand-in-toasts { display: none !important; }' });
  await page.screenshot({ path: file, fullPage: true });
  if (standIns) await page.addStyleTag({ content: '#stand-in-toasts { display: flex !important; }' });
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOCS_SCREENSHOT_DIR, { recursive: true });
    copyFileSync(file, join(DOCS_SCREENSHOT_DIR, `${name}.png`));
  }
  return file;
}
