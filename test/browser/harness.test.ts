import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, seriousAccessibilityViolations } from '../helpers/browser.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

// The browser tests lean on this: if axe stopped finding problems, every page would pass.
test('the accessibility check finds an unlabelled field and an image without alt text', async () => {
  const page = await browser.newPage();
  await page.setContent(
    '<!doctype html><html lang="en"><title>t</title><main><input type="text"><img src="data:,"></main></html>',
  );
  const ids = (await seriousAccessibilityViolations(page)).map((v) => v.id).sort();
  expect(ids).toEqual(expect.arrayContaining(['image-alt', 'label']));
  await page.setContent(
    '<!doctype html><html lang="en"><title>t</title><main><label>Name <input type="text"></label><img src="data:," alt="dot"></main></html>',
  );
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
});
