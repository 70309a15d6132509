// `npm run bench:storefront`: what the cart block costs the storefront. Lighthouse (mobile
// preset, Shopify's storefront bar: an extension must not lower the score by more than 10 points)
// on the storefront stand-in's cart page with and without the block, the block asking the app's
// proxy (the real entry point, SQLite). Prints figures only; nothing here is asserted.
import lighthouse from 'lighthouse';
import { launch } from 'chrome-launcher';
import puppeteer from 'puppeteer-core';
import { startStorefront } from '../../dev/shop-sim/storefront.ts';
import { CHROMIUM } from '../support/admin-browser.ts';
import { API_SECRET, benchArgs, benchDatabase, cli, printSummary, startAppProcess, type Figure } from './lib.ts';

const { quick } = benchArgs();
const RUNS = quick ? 1 : 3;
const SHOP = 'bench-storefront.myshopify.com';
const DAY = { open: '00:00', close: '23:59' };

const db = (await benchDatabase('sqlite'))!;
const app = await startAppProcess(db.url);
const windows = { default: { timeZone: 'UTC', hours: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY }, cutoff: null, closures: [], prepMinutes: 0 } };
cli(app.env, 'configure', SHOP, '--settings', JSON.stringify({ windows, slots: { enabled: true, capacity: 5, daysAhead: 6 } }));
const store = await startStorefront({ shop: SHOP, appUrl: app.url, apiSecret: API_SECRET });
const chrome = await launch({ chromePath: CHROMIUM, chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'], logLevel: 'silent' });
const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });

async function score(url: string): Promise<{ score: number; tbtMs: number; lcpMs: number; cls: number }> {
  const scores: Array<{ score: number; tbtMs: number; lcpMs: number; cls: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const r = await lighthouse(url, { output: 'json', logLevel: 'error', onlyCategories: ['performance'] }, undefined, page);
    await context.close();
    const lhr = r!.lhr;
    scores.push({ score: Math.round((lhr.categories.performance!.score ?? 0) * 100), tbtMs: Math.round(lhr.audits['total-blocking-time']!.numericValue!), lcpMs: Math.round(lhr.audits['largest-contentful-paint']!.numericValue!), cls: Number(lhr.audits['cumulative-layout-shift']!.numericValue!.toFixed(3)) });
  }
  return scores.sort((a, b) => a.score - b.score)[Math.floor(scores.length / 2)]!;
}

const without = await score(`${store.url}/cart?block=0`);
const withBlock = await score(`${store.url}/cart`);
console.log(`without the block: score ${without.score}, LCP ${without.lcpMs} ms, TBT ${without.tbtMs} ms, CLS ${without.cls}`);
console.log(`with the block:    score ${withBlock.score}, LCP ${withBlock.lcpMs} ms, TBT ${withBlock.tbtMs} ms, CLS ${withBlock.cls} (median of ${RUNS})`);
const figures: Figure[] = [
  { name: 'storefront score without the block', value: without.score, unit: '' },
  { name: 'storefront score with the block', value: withBlock.score, unit: '' },
  { name: 'storefront score drop', value: without.score - withBlock.score, unit: 'points', target: { op: '<=', limit: 10 } },
  { name: 'storefront TBT with the block', value: withBlock.tbtMs, unit: 'ms' },
  { name: 'storefront LCP with the block', value: withBlock.lcpMs, unit: 'ms' },
  { name: 'storefront CLS with the block', value: withBlock.cls, unit: '' },
];
await browser.disconnect();
chrome.kill();
await store.close();
await app.stop();
printSummary('storefront', figures);
process.exit(0);
