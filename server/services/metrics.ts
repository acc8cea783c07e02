// The operator's metrics (GET /metrics, Prometheus text format, by prom-client, the standard
// client library): what the process counts as it serves (requests by operation and status, their
// latency), what the database says at each scrape (runs by kind and status, the age of the oldest
// due run per worker lane, publish runs per platform, webhook deliveries by status), the live SSE
// subscribers, the database pool, and prom-client's default process metrics (resident memory,
// heap, event-loop lag, CPU). One registry per server instance (tests start several in a process).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { registeredJob, type Lane } from '../jobs/registry.js';
import * as store from '../store/metrics.js';
import type { ServiceDeps } from './context.js';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface MetricsSources {
  /** Live SSE subscribers of this instance. */
  subscribers: () => number;
  /** The database pool of this instance (PostgreSQL); absent on SQLite's single connection. */
  pool?: () => PoolStats;
}

export interface ServerMetrics {
  registry: Registry;
  /** Counts one answered request: its operationId (or `unmatched`), status and duration. */
  observeRequest(operation: string, status: number, seconds: number): void;
}

export function createMetrics(deps: Pick<ServiceDeps, 'db' | 'clock'>, sources: MetricsSources): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  /** A gauge the database gives at each scrape: one sample per row, labelled by the row's fields but its count `n`. */
  const countGauge = <L extends string>(name: string, help: string, labelNames: readonly L[], read: () => Promise<Array<Record<L, string> & { n: number }>>) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await read()) {
          const labels = {} as Record<L, string>;
          for (const l of labelNames) labels[l] = row[l];
          this.set(labels, row.n);
        }
      },
    });
  const requests = new Counter({
    name: 'cpa_http_requests_total',
    help: 'HTTP requests answered, by the contract operation (operationId; unmatched for other paths) and status.',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'cpa_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by operation and status.',
    labelNames: ['operation', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  countGauge('cpa_runs', 'Runs in the database, by kind and status (queued, running, succeeded, failed, cancelled).', ['kind', 'status'], () =>
    store.runCounts(deps.db),
  );
  new Gauge({
    name: 'cpa_run_queue_oldest_age_seconds',
    help: 'Seconds since the oldest queued run became due, per worker lane (0 when none is waiting).',
    labelNames: ['lane'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const now = deps.clock.now();
      const ages = new Map<Lane, number>([
        ['default', 0],
        ['drafting', 0],
      ]);
      for (const r of await store.oldestDueQueued(deps.db, now)) {
        const lane = registeredJob(r.kind)?.lane ?? 'default';
        ages.set(lane, Math.max(ages.get(lane) ?? 0, (now.getTime() - r.runAfter.getTime()) / 1000));
      }
      for (const [lane, age] of ages) this.set({ lane }, age);
    },
  });
  countGauge(
    'cpa_publish_runs',
    'Publish runs by the platform posted to and their outcome (succeeded, failed) or state (queued, running, cancelled).',
    ['platform', 'status'],
    () => store.publishCounts(deps.db),
  );
  countGauge('cpa_webhook_deliveries', 'Outbound webhook deliveries by status (pending, succeeded, failed).', ['status'], () => store.deliveryCounts(deps.db));
  new Gauge({
    name: 'cpa_sse_subscribers',
    help: 'Event-stream (SSE) subscribers connected to this instance.',
    registers: [registry],
    collect() {
      this.set(sources.subscribers());
    },
  });
  const pool = sources.pool;
  if (pool)
    new Gauge({
      name: 'cpa_db_pool_connections',
      help: 'Database pool connections of this instance: total open, idle, and requests waiting for one.',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const p = pool();
        this.set({ state: 'total' }, p.total);
        this.set({ state: 'idle' }, p.idle);
        this.set({ state: 'waiting' }, p.waiting);
      },
    });
  return {
    registry,
    observeRequest(operation, status, seconds) {
      const labels = { operation, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}
