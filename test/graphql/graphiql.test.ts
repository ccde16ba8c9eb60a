/**
 * GraphiQL at GET /graphql in a real browser (headless Chromium, test/harness/browser.ts) with no
 * internet: the page must come whole from this server (every asset inlined, no CDN), compressed,
 * and run a query typed into its editor.
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { offlinePage, useChromium } from '../harness/browser.ts';
import { rest } from '../harness/clients.ts';

const app = await startTestApp();

const chromium = useChromium();

describe('GraphiQL at GET /graphql', () => {
  it('serves the page compressed', async () => {
    for (const encoding of ['gzip', 'br']) {
      const res = await app.fetch('/graphql', {
        headers: { accept: 'text/html', 'accept-encoding': encoding },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-encoding')).toBe(encoding);
      const html = await res.text(); // fetch decodes it
      expect(html.length).toBeGreaterThan(1_000_000);
      expect(html).not.toMatch(/<script[^>]+src=["']https?:/);
      expect(html).not.toMatch(/<link[^>]+href=["']https?:/);
    }
  });

  it('runs a query from the ?query= parameter with nothing fetched from elsewhere', async () => {
    const { page, elsewhere } = await offlinePage(chromium.browser, app.baseUrl);
    try {
      const res = await page.goto(
        `${app.baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`,
      );
      expect(res?.status()).toBe(200);
      await page.locator('.graphiql-execute-button').click({ timeout: 30_000 });
      await expect
        .poll(() => page.locator('.result-window').innerText(), { timeout: 15_000 })
        .toContain('"Query"');
      expect(elsewhere).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('runs a query typed into the editor', async () => {
    const { page, elsewhere } = await offlinePage(chromium.browser, app.baseUrl);
    try {
      await page.goto(`${app.baseUrl}/graphql`);
      await page.locator('.graphiql-query-editor .monaco-editor').click({ timeout: 30_000 });
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      await page.keyboard.type('{ __typename'); // the editor closes the brace itself
      const typed = async (): Promise<string> =>
        (await page.locator('.graphiql-query-editor .view-lines').innerText()).replace(/\s+/g, ' ');
      await expect.poll(typed).toMatch(/^\{ __typename ?\}$/);
      await page.keyboard.press('ControlOrMeta+Enter');
      await expect
        .poll(() => page.locator('.result-window').innerText(), { timeout: 15_000 })
        .toContain('"Query"');
      expect(elsewhere).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('opens with the admin example query, which runs with an admin bearer typed into the Headers tab (issue 15)', async () => {
    const { user, password } = await seedUser(app, { isAdmin: true });
    const login = await rest(app, 'POST', '/api/admin/auth/login', {
      body: { email: user.email, password },
    });
    expect(login.status).toBe(200);
    const { page, elsewhere } = await offlinePage(chromium.browser, app.baseUrl);
    try {
      await page.goto(`${app.baseUrl}/graphql`);
      const editor = page.locator('.graphiql-query-editor .view-lines');
      await expect
        .poll(() => editor.innerText(), { timeout: 30_000 })
        .toContain('adminDashboardStats');
      expect(await editor.innerText()).toContain('Authorization');
      await page
        .locator('.graphiql-editor-tool .monaco-editor >> visible=true')
        .click({ timeout: 30_000 });
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      await page.keyboard.insertText(
        JSON.stringify({ Authorization: `Bearer ${login.body.access_token}` }),
      );
      await page.locator('.graphiql-execute-button').click();
      await expect
        .poll(() => page.locator('.result-window').innerText(), { timeout: 15_000 })
        .toContain('"admins"');
      expect(await page.locator('.result-window').innerText()).not.toContain('"errors"');
      expect(elsewhere).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
