// Drives JupyterLab in headless Chromium the way a person would: open a notebook, Run ▸ Run All Cells, wait
// until every cell has run and the notebook's expected outputs are on the page, then take a screenshot.
// Called by notebooks/browser-test.sh, which starts the server:
//
//   node run.mjs --url http://127.0.0.1:PORT --token T --notebook 00-smoke.ipynb --file PATH --out shot.png
//
// --file is the notebook on disk (for its "eccco.expect" metadata). Exits non-zero on any failure.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const k of ['url', 'token', 'notebook', 'file', 'out']) {
  if (!args[k]) { console.error(`run.mjs: missing --${k}`); process.exit(2); }
}
const timeoutMs = Number(args.timeout || 900) * 1000;
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

const nb = JSON.parse(fs.readFileSync(args.file, 'utf8'));
const expect = (nb.metadata && nb.metadata.eccco && nb.metadata.eccco.expect) || [];
const codeCells = nb.cells.filter((c) => c.cell_type === 'code').length;

// What each expectation looks like on the page (notebooks/README.md documents the kinds).
function selectorFor(kind) {
  if (kind === 'image' || kind.startsWith('image/')) return '.jp-OutputArea-output img, .jp-OutputArea-output svg';
  if (kind === 'table') return '.jp-OutputArea-output table';
  return null; // text:… and other MIME types are checked by the headless test, not here
}

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'eccco-chromium-'));
const log = (...m) => console.log(`[browser ${(performance.now() / 1000).toFixed(1)} s]`, ...m);
let context;
let failed = false;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 1100 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });

  const url = `${args.url}/lab/tree/${encodeURIComponent(args.notebook)}?token=${args.token}&reset`;
  log('opening', url.replace(args.token, '…'));
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  // The notebook is open with the gonb kernel once the toolbar names it. (GoNB leaves the kernel status
  // "Unknown" until the first execution, so the status is not waited for.)
  await page.waitForSelector('.jp-NotebookPanel .jp-Notebook .jp-Cell', { state: 'visible' });
  await page.waitForFunction(() => {
    const k = document.querySelector('.jp-NotebookPanel .jp-KernelName');
    return k && /gonb/i.test(k.textContent);
  }, null, { timeout: 120000, polling: 250 });
  log('notebook open with kernel', await page.locator('.jp-NotebookPanel .jp-KernelName').first().innerText());
  await page.keyboard.press('Control+b'); // fold the file browser away: more room for the notebook

  // Run ▸ Run All Cells, from the menu bar.
  await page.getByRole('menuitem', { name: 'Run', exact: true }).click();
  await page.getByRole('menuitem', { name: /^Run All Cells/ }).click();
  log('Run All Cells clicked');

  // Done when every code cell has an execution count (no "[*]", no "[ ]").
  await page.waitForFunction((n) => {
    const prompts = [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt')];
    const done = prompts.filter((p) => /^\[\d+\]:?$/.test(p.textContent.trim()));
    return prompts.length >= n && done.length === prompts.length;
  }, codeCells, { polling: 500 });
  log('all', codeCells, 'code cells ran');

  for (const kind of expect) {
    const sel = selectorFor(kind);
    if (!sel) continue;
    await page.waitForSelector(sel, { state: 'attached', timeout: 30000 }).catch(() => {
      failed = true;
      console.error(`run.mjs: expected ${kind} (${sel}) is not on the page`);
    });
  }
  const problems = await page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll('.jp-OutputArea-output')) {
      const t = el.innerText || '';
      if (/panic:/.test(t) || el.querySelector('.gonb-err-location')) out.push(t.slice(0, 500));
      if (el.getAttribute('data-mime-type') === 'application/vnd.jupyter.stderr' && /Error|ERROR/.test(t)) out.push(t.slice(0, 500));
    }
    return out;
  });
  for (const p of problems) { failed = true; console.error('run.mjs: error output on the page:\n' + p); }

  // Photograph the first figure with its cell (or the top of the notebook when there is none).
  const fig = page.locator('.jp-OutputArea-output img, .jp-OutputArea-output svg').first();
  if (await fig.count()) await fig.scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  fs.mkdirSync(path.dirname(args.out), { recursive: true });
  await page.screenshot({ path: args.out });
  log('screenshot', args.out);
  if (consoleErrors.length) log(`${consoleErrors.length} browser console error(s), first: ${consoleErrors[0].slice(0, 200)}`);
} catch (err) {
  failed = true;
  console.error('run.mjs:', err && err.message ? err.message : err);
  try {
    const page = context && context.pages()[0];
    if (page) {
      const failShot = args.out.replace(/\.png$/, '') + '-failed.png';
      await page.screenshot({ path: failShot });
      console.error('run.mjs: screenshot of the failure:', failShot);
    }
  } catch { /* ignore */ }
} finally {
  if (context) await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
