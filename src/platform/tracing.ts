/**
 * Optional OpenTelemetry tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, one server span per HTTP
 * request (method, route template, status; a caller's W3C `traceparent` continues its trace),
 * exported over OTLP/HTTP (JSON) to <endpoint>/v1/traces in batches.
 *
 * Why this shape: the SDK is loaded by dynamic import only when configured, so a default start
 * pays nothing for it; spans are started and ended by the metrics middleware (metrics.ts), which
 * already knows the route label, instead of patching node:http. It must never record a raw URL,
 * query string, header or body: only the method, the bounded route label and the status.
 */
import type { Request } from 'express';
import type { Config } from '../base/config.ts';
import type { Logger } from '../base/logger.ts';

/** One request's span: ended with its route label and status once the answer is written. */
export interface RequestSpan {
  end(route: string, status: number): void;
}

export interface RequestTracer {
  /** starts the span of a request (a parent from its `traceparent` header, if any) */
  start(req: Request): RequestSpan;
  /** exports the spans still buffered and stops */
  shutdown(): Promise<void>;
}

/** Loads the SDK and returns a tracer exporting to the configured endpoint. */
export async function startTracing(
  config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME'>,
  log: Logger,
): Promise<RequestTracer> {
  const [api, core, sdk, exporter, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/+$/, '');
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new exporter.OTLPTraceExporter({ url: `${endpoint}/v1/traces` }),
        // sent every second: a crash loses at most about a second of spans
        scheduledDelayMillis: 1000,
      }),
    ],
  });
  const tracer = provider.getTracer('health-platform');
  const propagator = new core.W3CTraceContextPropagator();
  const getter: import('@opentelemetry/api').TextMapGetter<Request['headers']> = {
    keys: (headers) => Object.keys(headers),
    get: (headers, key) => headers[key],
  };
  log.info({ endpoint }, 'tracing on: OTLP/HTTP');
  return {
    start(req) {
      const parent = propagator.extract(api.ROOT_CONTEXT, req.headers, getter);
      const span = tracer.startSpan(
        req.method,
        { kind: api.SpanKind.SERVER, attributes: { 'http.request.method': req.method } },
        parent,
      );
      return {
        end(route, status) {
          span.updateName(`${req.method} ${route}`);
          span.setAttribute('http.route', route);
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}

/**
 * The app's tracer once loaded (undefined until then, and always without an endpoint): the request
 * middleware asks it per request, so requests before the SDK has loaded are simply not traced.
 */
export function lazyTracer(
  config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME'>,
  log: Logger,
): { current: () => RequestTracer | undefined; ready: Promise<RequestTracer | undefined> } {
  let tracer: RequestTracer | undefined;
  const ready = config.OTEL_EXPORTER_OTLP_ENDPOINT
    ? startTracing(config, log).then(
        (t) => (tracer = t),
        (err: unknown) => {
          log.error({ err }, 'tracing could not start; serving without it');
          return undefined;
        },
      )
    : Promise.resolve(undefined);
  return { current: () => tracer, ready };
}
