/**
 * The request log never holds a secret: an emailed reset link carries its token in the URL, and
 * credentials travel in headers (redacted by the logger). At info level a request is one short
 * line (id, method, URL, status, time); its headers are logged only at debug level (issue 18).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { redactedUrl } from '../../src/base/logger.ts';
import { startTestApp } from '../harness/app.ts';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});
const app = await startTestApp({ LOG_LEVEL: 'info' }, { logTo: sink });
const debugLines: string[] = [];
const debugApp = await startTestApp(
  { LOG_LEVEL: 'debug' },
  {
    logTo: new Writable({
      write(chunk, _encoding, done) {
        debugLines.push(String(chunk));
        done();
      },
    }),
  },
);

describe('the request log', () => {
  it('keeps the path of an emailed link but never its token, nor a bearer token or cookie', async () => {
    const token = 'tok_' + 'x'.repeat(40);
    await app.fetch(`/reset-password?token=${token}&lang=en`, { headers: { accept: 'text/html' } });
    await app.fetch('/api/auth/me', {
      headers: { authorization: `Bearer bearer_${token}`, cookie: `session=cookie_${token}` },
    });
    const log = lines.join('');
    expect(log).toContain('/reset-password?token=[Redacted]&lang=en');
    expect(log).not.toContain(token);
    const line = JSON.parse(lines.find((l) => l.includes('/api/auth/me'))!);
    expect(line).toMatchObject({
      req: { method: 'GET', url: '/api/auth/me' },
      res: { statusCode: 401 },
    });
    expect(Object.keys(line.req).sort()).toEqual(['id', 'method', 'url']);
    expect(Object.keys(line.res)).toEqual(['statusCode']);
  });

  it('logs the headers at debug level, credentials redacted', async () => {
    const token = 'tok_' + 'y'.repeat(40);
    await debugApp.fetch(`/reset-password?token=${token}`, { headers: { accept: 'text/html' } });
    await debugApp.fetch('/api/auth/me', {
      headers: { authorization: `Bearer bearer_${token}`, cookie: `session=cookie_${token}` },
    });
    const log = debugLines.join('');
    expect(log).toContain('/reset-password?token=[Redacted]');
    expect(log).toContain('"authorization":"[Redacted]"');
    expect(log).toContain('"cookie":"[Redacted]"');
    expect(log).not.toContain(token);
  });

  it('redacts only the values of secret parameters', () => {
    expect(redactedUrl('/a?token=s3cret&x=1')).toBe('/a?token=[Redacted]&x=1');
    expect(redactedUrl('/a?x=1&Code=123456&password=pw')).toBe(
      '/a?x=1&Code=[Redacted]&password=[Redacted]',
    );
    expect(redactedUrl('/a?tok%65n=s3cret')).toBe('/a?tok%65n=[Redacted]');
    expect(redactedUrl('/a?tokens=kept&%E0=1')).toBe('/a?tokens=kept&%E0=1');
    expect(redactedUrl('/a')).toBe('/a');
  });
});
