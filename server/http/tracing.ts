// Traces through OpenTelemetry, only when an OTLP endpoint is configured (the standard
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): one server span per request,
// named by its contract operation, continuing the caller's trace when the request carries a W3C
// `traceparent`, exported over OTLP/HTTP in batches. Without an endpoint nothing of OpenTelemetry
// is loaded (every import below is dynamic) and requests pay nothing.
//
// The exporter sends to the configured collector directly, not through the outbound client that
// refuses non-public addresses: the collector is the operator's own infrastructure (usually on
// localhost or the private network), named in the environment like DATABASE_URL, never by a
// request.
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RouteTable } from './route-table.js';

export interface Tracing {
  /** Opens a span per request and closes it when the answer is sent (or the connection ends). */
  middleware(routes: RouteTable): RequestHandler;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** The traces endpoint the environment names, or null (tracing off). */
export function otlpTracesUrl(config: Pick<Config, 'otlpEndpoint' | 'otlpTracesEndpoint'>): string | null {
  if (config.otlpTracesEndpoint) return config.otlpTracesEndpoint;
  if (config.otlpEndpoint) return `${config.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
  return null;
}

export async function startTracing(config: Config, logger: Logger): Promise<Tracing | null> {
  const url = otlpTracesUrl(config);
  if (!url) return null;
  const [api, core, resources, sdk, exporter] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': config.otelServiceName }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new exporter.OTLPTraceExporter({ url }), scheduledDelayMillis: config.otelExportDelayMs })],
  });
  const tracer = provider.getTracer('content-pipeline');
  const propagator = new core.W3CTraceContextPropagator();
  const getter: import('@opentelemetry/api').TextMapGetter<Record<string, string | string[] | undefined>> = {
    keys: (carrier) => Object.keys(carrier),
    get: (carrier, key) => carrier[key],
  };
  logger.info({ url }, 'exporting traces over OTLP');
  return {
    middleware: (routes) => (req, res, next) => {
      const parent = propagator.extract(api.ROOT_CONTEXT, req.headers, getter);
      const route = routes.matchRequest(req).route;
      const span = tracer.startSpan(
        route ? `${req.method} ${route.template}` : req.method,
        {
          kind: api.SpanKind.SERVER,
          attributes: {
            'http.request.method': req.method,
            'url.path': req.path,
            ...(route ? { 'http.route': route.template, 'cpa.operation': route.operationId } : {}),
          },
        },
        parent,
      );
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        const requestId = res.getHeader('X-Request-Id');
        if (typeof requestId === 'string') span.setAttribute('cpa.request_id', requestId);
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
        if (!res.writableFinished) span.setAttribute('cpa.aborted', true);
        span.end();
      };
      res.once('finish', end);
      res.once('close', end);
      next();
    },
    shutdown: () => provider.shutdown(),
  };
}
