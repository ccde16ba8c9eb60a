import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'hdp-cfg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({ DATA_DIR: dir });
    expect(c.PORT).toBe(8000);
    expect(c.HOST).toBe('127.0.0.1');
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.MCP_CALLS_PER_MINUTE).toBe(60);
    expect(c.MCP_CALLS_PER_DAY).toBe(2000);
    expect(c.cookieSecure).toBe(false);
    expect(c.trustProxy).toBe('loopback');
  });

  it('reads TRUST_PROXY as express reads trust proxy: hops as a number, false as none, else addresses', () => {
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe(
      'loopback, 10.0.0.0/8',
    );
  });

  it('generates the embedded secret once, private to the owner, and reuses it', () => {
    const a = loadConfig({ DATA_DIR: dir });
    const b = loadConfig({ DATA_DIR: dir });
    expect(Buffer.from(a.jwtSecret).toString()).toBe(Buffer.from(b.jwtSecret).toString());
    expect(a.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(path.join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATA_DIR: dir, DATABASE_URL: '', PORT: '' }).PORT).toBe(8000);
  });

  it('refuses bad values with a message naming the variable', () => {
    expect(() => loadConfig({ DATA_DIR: dir, PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATA_DIR: dir, DATABASE_URL: 'mysql://x' })).toThrow(
      /DATABASE_URL: must be a postgres/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, JWT_SECRET: 'short' })).toThrow(/JWT_SECRET/);
  });

  it('marks cookies Secure behind an https public URL', () => {
    expect(
      loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://health.example.com' }).cookieSecure,
    ).toBe(true);
  });
});
