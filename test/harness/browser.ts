/**
 * Headless Chromium through playwright-core, for testing our web pages with no internet: pages may
 * reach only the test server; every other request is aborted and recorded so a test can assert
 * that nothing tried to reach a CDN. The browser is the one the @sparticuz/chromium package carries
 * (its binary is in the npm tarball, nothing is downloaded); the global setup unpacks it once.
 */
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Browser, Page } from 'playwright-core';

/** Launches headless Chromium. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: inject('chromium'),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A page that may only reach baseUrl (and data:/blob: URLs); `elsewhere` lists what it tried beyond. */
export async function offlinePage(
  browser: Browser,
  baseUrl: string,
): Promise<{ page: Page; elsewhere: string[] }> {
  const page = await browser.newPage();
  const elsewhere: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${baseUrl}/`) || url.startsWith('data:') || url.startsWith('blob:'))
      return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  return { page, elsewhere };
}

/** The Accept header a browser sends when it navigates to a page. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** One Chromium for the calling test file: launched before its tests, closed after them. */
export function useChromium(): { readonly browser: Browser } {
  let launched: Browser | undefined;
  beforeAll(async () => {
    launched = await launchChromium();
  });
  afterAll(async () => {
    await launched?.close();
  });
  return {
    get browser(): Browser {
      if (!launched) throw new Error("Chromium is used before the file's beforeAll launched it");
      return launched;
    },
  };
}
