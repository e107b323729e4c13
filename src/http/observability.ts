// Request ids, response headers and Prometheus metrics (GET /metrics).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Keep a caller's X-Request-Id when it is a sane token (for tracing across services); else make one. */
export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(incoming) ? incoming : randomUUID();
}

export function registerObservability(app: FastifyInstance): Registry {
  // Hooks on every request are written in callback style: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-correlation-id', request.id);
    if (request.url.startsWith('/api')) reply.header('cache-control', 'no-cache, no-store');
    done();
  });

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status code',
    labelNames: ['method', 'route', 'status_code'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // The series of each (method, route pattern, status), bound once: prom-client hashes the labels
  // on every call otherwise. The route pattern, never the raw URL, so ids in paths cannot explode
  // the label set.
  const series = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let bound = series.get(key);
    if (bound === undefined) {
      const labels = { method: request.method, route, status_code: String(reply.statusCode) };
      bound = { count: requests.labels(labels), time: duration.labels(labels) };
      series.set(key, bound);
    }
    bound.count.inc();
    bound.time.observe(reply.elapsedTime / 1000);
    done();
  });
  return registry;
}

/** A gauge read when /metrics is scraped (e.g. consumers waiting in long polls). */
export function registerGauge(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
}
