/**
 * The layering rule (`npm run lint:deps`, .dependency-cruiser.cjs) holds for the tree, and is not
 * vacuous: a small planted tree (test/fixtures/layering) that breaks each rule is caught by it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { cruise } from 'dependency-cruiser';
import type { ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as {
  forbidden: unknown[];
  options: Record<string, unknown>;
};
const ROOT = path.resolve(import.meta.dirname, '../..');

/** The violations of the rules over `dirs`, relative to `baseDir`, as `rule: from -> to`. */
async function violations(baseDir: string, dirs: string[]): Promise<string[]> {
  const { output } = await cruise(dirs, {
    ...config.options,
    tsConfig: { fileName: path.join(ROOT, 'tsconfig.json') },
    ruleSet: { forbidden: config.forbidden },
    validate: true,
    baseDir,
  } as never);
  const result = output as ICruiseResult;
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

describe('the layering rule', () => {
  it('holds for the server, the facades and the web pages', async () => {
    expect(await violations(ROOT, ['src', 'rest-facade', 'mcp-facade', 'web-pages'])).toEqual([]);
  }, 60_000);

  it('catches each kind of violation in a planted tree', async () => {
    const found = await violations(path.join(ROOT, 'test/fixtures/layering'), [
      'src',
      'rest-facade',
      'mcp-facade',
    ]);
    const rules = new Set(found.map((v) => v.slice(0, v.indexOf(':'))));
    expect([...rules].sort()).toEqual([
      'base-knows-no-domain',
      'db-knows-no-domain-and-no-http',
      'dna-stays-in-its-domain',
      'domain-reaches-another-through-its-index',
      'facade-reaches-core-only-through-graphql-auth-platform',
      'no-circular',
      'no-facade-imports-another',
      'no-folder-cycle',
      'nothing-imports-a-facade',
      'oauth-host-reaches-only-the-oauth-domain',
      'platform-knows-no-domain',
    ]);
    expect(found).toContain(
      'domain-reaches-another-through-its-index: src/domains/insights/insights.service.ts -> src/domains/meals/meals.service.ts',
    );
    // the index itself is the allowed way in from another domain (insights), but not from the base
    // or the OAuth host (only the oauth domain's)
    expect(found.filter((v) => v.includes('-> src/domains/meals/index.ts'))).toEqual([
      'base-knows-no-domain: src/graphql/references.ts -> src/domains/meals/index.ts',
      'oauth-host-reaches-only-the-oauth-domain: src/oauth-host/planted.ts -> src/domains/meals/index.ts',
    ]);
    // DNA is read by no other domain, even through its index
    expect(found).toContain(
      'dna-stays-in-its-domain: src/domains/export/export.writer.ts -> src/domains/dna/index.ts',
    );
    // folders that import each other with no file cycle: the graph base reading a domain
    expect(found).toContain('no-folder-cycle: src/graphql -> src/domains/meals');
    expect(found).toContain(
      'facade-reaches-core-only-through-graphql-auth-platform: rest-facade/planted.ts -> src/domains/meals/meals.service.ts',
    );
  }, 60_000);
});
