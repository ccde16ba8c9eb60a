/**
 * GraphQL over HTTP conformance of POST/GET /graphql, audited by graphql-http's own server audits
 * (a client nobody here wrote). Every MUST audit has to pass; SHOULD and MAY results are reported.
 */
import { serverAudits } from 'graphql-http';
import type { AuditResult } from 'graphql-http';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../harness/app.ts';

const app = await startTestApp();
const audits = serverAudits({ url: `${app.baseUrl}/graphql`, fetchFn: fetch });

describe('graphql-http server audits', () => {
  it('finds the audits', () => {
    expect(audits.filter((a) => a.name.startsWith('MUST')).length).toBeGreaterThan(0);
  });

  for (const audit of audits.filter((a) => a.name.startsWith('MUST'))) {
    it(audit.name, async () => {
      const result = await audit.fn();
      expect(result.status, result.status === 'ok' ? '' : `${result.reason}`).toBe('ok');
    });
  }

  it('reports the SHOULD and MAY audits', async () => {
    const optional = audits.filter((a) => !a.name.startsWith('MUST'));
    const results: AuditResult[] = [];
    for (const audit of optional) results.push(await audit.fn());
    const notOk = results.filter((r) => r.status !== 'ok');
    console.log(
      `graphql-http audits: ${optional.length - notOk.length} of ${optional.length} SHOULD/MAY ok` +
        notOk
          .map((r) => `\n  ${r.status}: ${r.name}${'reason' in r ? ` (${r.reason})` : ''}`)
          .join(''),
    );
    expect(results.length).toBe(optional.length);
  });
});
