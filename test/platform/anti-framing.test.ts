/**
 * Issue 29, item 8: the pages this server serves to browsers refuse to be framed by another site
 * (clickjacking), as the consent pages do: `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`
 * on the REST docs page (/api/docs) and on GraphiQL (GET /graphql).
 */
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../harness/app.ts';

const app = await startTestApp();

describe('pages served to browsers (issue 29)', () => {
  it.each([
    ['/api/docs', 'the REST docs page'],
    ['/graphql', 'GraphiQL'],
  ])('%s (%s) may not be framed', async (path) => {
    const res = await app.fetch(path, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    await res.arrayBuffer();
  });
});
