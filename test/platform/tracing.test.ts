/**
 * Optional OpenTelemetry tracing (issue 18): with OTEL_EXPORTER_OTLP_ENDPOINT set, a request becomes
 * a server span with its route template and status, exported over OTLP/HTTP (JSON) to a real HTTP
 * collector inside this test; a caller's `traceparent` continues its trace. Nothing raw (URL,
 * query, token) travels in a span.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';

interface OtlpSpan {
  traceId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}

/** A collector: every POST to /v1/traces, its body kept as text and its spans parsed. */
const bodies: string[] = [];
const spans: OtlpSpan[] = [];
const collector = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json')) {
      bodies.push(text);
      const body = JSON.parse(text) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise((resolve) => collector.close(resolve)));
const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

const attribute = (span: OtlpSpan, key: string): string | undefined => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : String(value.stringValue ?? value.intValue);
};

/** Waits until a span matching `match` has been received (the batch goes out every second). */
async function spanWhere(match: (s: OtlpSpan) => boolean): Promise<OtlpSpan> {
  for (let i = 0; i < 100; i++) {
    const found = spans.find(match);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no such span among ${spans.length}`);
}

describe('OpenTelemetry tracing (OTEL_EXPORTER_OTLP_ENDPOINT set)', async () => {
  const app = await startTestApp({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });

  it('exports a server span per request with its route template and status', async () => {
    const { token } = await seedUser(app);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    // the SDK loads in the background at start: requests before that are not traced
    const seen = async (): Promise<OtlpSpan> => {
      for (let i = 0; i < 50; i++) {
        const res = await app.fetch('/api/v1/experiments/918273645?secret=q7', {
          headers: { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${parent}-01` },
        });
        expect(res.status).toBe(404);
        const found = spans.find((s) => s.traceId === traceId);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return spanWhere((s) => s.traceId === traceId);
    };
    const span = await seen();
    expect(span.name).toBe('GET /api/v1/experiments/{experiment_id}');
    expect(span.kind).toBe(2); // SERVER
    expect(span.parentSpanId).toBe(parent);
    expect(attribute(span, 'http.route')).toBe('/api/v1/experiments/{experiment_id}');
    expect(attribute(span, 'http.response.status_code')).toBe('404');
    expect(attribute(span, 'http.request.method')).toBe('GET');

    await app.fetch('/api/auth/me', { headers: { authorization: `Bearer ${token}` } });
    const me = await spanWhere((s) => attribute(s, 'http.route') === '/api/auth/me');
    expect(attribute(me, 'http.response.status_code')).toBe('200');
    expect(me.traceId).not.toBe(traceId);

    const sent = bodies.join('\n');
    for (const raw of ['918273645', 'secret=q7', token]) expect(sent).not.toContain(raw);
    expect(sent).toContain('health-platform'); // service.name
  });
});
