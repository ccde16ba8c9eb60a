import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const shared = path.resolve(root, '../shared/spec');

describe('docs/spec, the copy of the documented interface', () => {
  it('holds the four spec files', () => {
    for (const f of ['rest-api.md', 'mcp.md', 'rest-routes.tsv', 'mcp-tools.tsv']) {
      expect(existsSync(path.join(root, 'docs/spec', f)), f).toBe(true);
    }
  });

  // Only where ../shared sits beside the checkout (the development machines); CI clones alone.
  it.runIf(existsSync(shared))('equals ../shared/spec', () => {
    for (const f of ['rest-api.md', 'mcp.md', 'rest-routes.tsv', 'mcp-tools.tsv']) {
      expect(readFileSync(path.join(root, 'docs/spec', f), 'utf8'), f).toBe(
        readFileSync(path.join(shared, f), 'utf8'),
      );
    }
  });
});
