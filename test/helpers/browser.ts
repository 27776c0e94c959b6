import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

/** Debian's chromium by default (scripts/ensure-test-deps.sh installs it); CHROMIUM_BIN points elsewhere. */
export const chromiumPath = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/** `--no-sandbox` because CI runs as root, where Chromium's sandbox refuses to start. */
const launch = () => chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
let shared: Promise<Browser> | undefined;

/**
 * A real headless Chromium, one per test worker: the files a worker runs one after another share
 * it (isolate: false keeps this module for the worker's life), where each launched its own at 1-1.5
 * s and a handful of processes. What a file gets is that browser with a close() of its own, which
 * closes the contexts and pages the file opened (each has its own cookies and cache); Playwright
 * ends the browser with the worker.
 */
export async function launchBrowser(): Promise<Browser> {
  let browser = await (shared ??= launch());
  if (!browser.isConnected()) browser = await (shared = launch());
  const before = new Set(browser.contexts());
  const close = async () => {
    await Promise.all(
      browser
        .contexts()
        .filter((context) => !before.has(context))
        .map((context) => context.close()),
    );
  };
  return new Proxy(browser, {
    get(target, property) {
      if (property === 'close') return close;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe-core on the page as it stands and returns its serious and critical violations. */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, not added as a <script>: a page's CSP (the dashboard
  // allows only its own script) does not stop it.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: RawViolation[] }> } }).axe;
    interface RawViolation {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: string[] }[];
    }
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export const screensDir = path.resolve('.tmp/screens');

/** Writes `<name>-375.png` and `<name>-1440.png` to .tmp/screens/ (not committed), for a person to look at. */
export async function screenshotWidths(page: Page, name: string): Promise<void> {
  fs.mkdirSync(screensDir, { recursive: true });
  const before = page.viewportSize();
  for (const width of [375, 1440]) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await page.screenshot({ path: path.join(screensDir, `${name}-${width}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}
