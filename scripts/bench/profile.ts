// Summarizes a V8 CPU profile (`BENCH_CPU_PROF=1 npm run bench …` writes them in
// build/bench-prof): self time by package / area and by function, plus the total time under
// each of a few markers (inclusive), so that BENCHMARKS.md can say where the time goes.
//   node --import tsx scripts/bench/profile.ts build/bench-prof/<file>.cpuprofile
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function areaOf(url: string): string {
  if (!url) return '(native / V8)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  // Our own files: by their folder in the repository (server/http, server/store, …).
  const own = /\/(server|scripts|test|clients|generated)\/(.+)$/.exec(url.replace(/^file:\/\//, ''));
  return own ? `${own[1]}/${own[2]!.split('/')[0]!.replace(/\.[cm]?[jt]s$/, '')}` : url;
}

const file = process.argv[2];
if (!file) throw new Error('usage: profile.ts <file.cpuprofile> [marker …]');
const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0);

const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const areas = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  if (n.callFrame.functionName === '(idle)') continue;
  add(areas, areaOf(n.callFrame.url), t);
  add(fns, `${n.callFrame.functionName || '(anonymous)'} ${areaOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`, t);
}

// Inclusive time under functions whose name or url contains a marker.
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const markers = process.argv.slice(3);
const inclusive = new Map<string, number>();
for (const [id, t] of self) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur)!.callFrame;
    for (const m of markers) if (!seen.has(m) && (f.functionName.includes(m) || f.url.includes(m))) seen.add(m);
  }
  for (const m of seen) add(inclusive, m, t);
}

// Self time by part of a request: the socket writes (system calls, including the receiving side's
// TCP work on loopback and time the process was preempted inside them), the database driver, the
// query builder, Express, the validator, logging, our own code by folder, V8's GC, the rest of Node.
function partOf(fn: string, area: string): string {
  if (/^(writeUtf8String|writev|writeString|writeBuffer|writeLatin1String)$/.test(fn)) return 'socket writes (system calls)';
  if (fn === '(garbage collector)') return 'garbage collection';
  if (area === 'node:inspector') return 'the profiler itself';
  if (area === 'better-sqlite3' || (fn === '' && area === '(native / V8)')) return 'SQLite (better-sqlite3, native)';
  if (area === 'pg' || area === 'pg-protocol' || area === 'pg-pool' || area === 'pg-types') return 'pg (driver, protocol)';
  if (area === 'kysely') return 'Kysely';
  if (
    area === 'express' ||
    area === 'router' ||
    area === 'body-parser' ||
    area === 'content-type' ||
    area === 'mime-types' ||
    area === 'media-typer' ||
    area === 'type-is' ||
    area === 'etag' ||
    area === 'send' ||
    area === 'finalhandler'
  )
    return 'Express and its helpers';
  if (area === 'express-openapi-validator' || area === 'ajv' || area === 'ajv-formats' || area === 'ajv-draft-04' || area === 'fast-uri')
    return 'OpenAPI validation (validator, ajv)';
  if (
    area === 'pino' ||
    area === 'pino-http' ||
    area === '@pinojs/redact' ||
    area === 'pino-std-serializers' ||
    area === 'sonic-boom' ||
    area === 'fast-redact' ||
    area === 'quick-format-unescaped' ||
    area === 'thread-stream'
  )
    return 'logging (pino, pino-http, redaction)';
  if (area.startsWith('server/')) return area;
  if (area.startsWith('node:') || area === '(native / V8)') return 'Node (HTTP, streams, timers) and V8';
  return `other: ${area}`;
}
const parts = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  if (n.callFrame.functionName === '(idle)') continue;
  add(parts, partOf(n.callFrame.functionName, areaOf(n.callFrame.url)), t);
}

const busy = total - idle;
const pct = (t: number) => `${((100 * t) / busy).toFixed(1)}%`;
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(`busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled`);
console.log('\nself time by area:');
for (const [k, t] of top(areas, 15)) console.log(`  ${pct(t).padStart(6)}  ${k}`);
console.log('\nself time by part of the request:');
for (const [k, t] of top(parts, 20)) console.log(`  ${pct(t).padStart(6)}  ${k}`);
console.log('\nself time by function:');
for (const [k, t] of top(fns, 25)) console.log(`  ${pct(t).padStart(6)}  ${k}`);
if (markers.length) {
  console.log('\ninclusive time under:');
  for (const m of markers) console.log(`  ${pct(inclusive.get(m) ?? 0).padStart(6)}  ${m}`);
}
