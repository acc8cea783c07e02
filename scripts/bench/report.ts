// The results table (terminal, via cli-table3) and BENCHMARKS.md. The file's measured section
// lies between two markers and is replaced on every run; everything else in the file (the notes
// on profiles, decisions and the soak) is kept as it is.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Table from 'cli-table3';
import { root } from './children.js';

export interface Row {
  scenario: string;
  db: string;
  rps: number | null;
  p50: number | null;
  p99: number | null;
  /** Server CPU per request, µs (independent of how busy the machine is). */
  cpuUs: number | null;
  note: string;
}

export const BENCHMARKS = path.join(root, 'BENCHMARKS.md');

export function machine() {
  const version = (cmd: string, args: string[]) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8' }).trim().split('\n')[0]!;
    } catch {
      return 'unknown';
    }
  };
  const pkg = (name: string) => (JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  return {
    date: new Date().toISOString(),
    load: os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(', '),
    cpus: `${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'unknown CPU'}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    postgresql: version('psql', ['--version']),
    sqlite: 'better-sqlite3 ' + pkg('better-sqlite3'),
    express: pkg('express'),
    kysely: pkg('kysely'),
    autocannon: pkg('autocannon'),
  };
}

const fmt = (n: number | null, digits = 0) =>
  n === null || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (n: number | null, base: number | null) => (n === null || !base ? '–' : `${(n / base).toFixed(2)}×`);

function cells(r: Row, base: Row) {
  // Fan-out rows (no req/s) have latencies of another kind: no ratio to an HTTP request's.
  const p99Ratio = r.rps === null ? '–' : ratio(r.p99, base.p99);
  return [r.scenario, r.db, fmt(r.rps), ratio(r.rps, base.rps), fmt(r.p50, 1), fmt(r.p99, 1), p99Ratio, fmt(r.cpuUs), ratio(r.cpuUs, base.cpuUs), r.note];
}

const HEAD = ['scenario', 'db', 'req/s', '× baseline req/s', 'p50 ms', 'p99 ms', '× baseline p99', 'server CPU µs/req', '× baseline CPU', 'note'];

export function printTable(rows: Row[], base: Row): void {
  const t = new Table({ head: HEAD, wordWrap: true, colWidths: [30, 11, 8, 10, 8, 8, 10, 9, 9, 40] });
  for (const r of rows) t.push(cells(r, base));
  console.log(t.toString());
}

export function markdown(rows: Row[], base: Row, verdicts: string[], m: ReturnType<typeof machine>, seconds: number, loadAtStart: string): string {
  const lines = [
    `Measured ${m.date} by \`npm run bench\` (${seconds} s per measurement after a 2 s warm-up; 32 connections; client and server on the same machine). Load average (1, 5, 15 min) at the start ${loadAtStart}, at the end ${m.load}: other work on the machine lowers req/s and raises latency; server CPU µs per request is the figure that does not depend on it.`,
    '',
    `Machine: ${m.cpus}, ${m.memory} RAM, ${m.os}. Node ${m.node}, Express ${m.express}, Kysely ${m.kysely}, ${m.sqlite}, ${m.postgresql}, autocannon ${m.autocannon}.`,
    '',
    `| ${HEAD.join(' | ')} |`,
    `| ${HEAD.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${cells(r, base).join(' | ')} |`),
    '',
    '**Targets**',
    '',
    ...verdicts.map((v) => `- ${v}`),
  ];
  return lines.join('\n');
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/** Replaces the measured section of BENCHMARKS.md (or `marker`'s section), keeping the rest. */
export function writeSection(body: string, marker = 'results'): void {
  const start = START.replace('results', marker);
  const end = END.replace('results', marker);
  const block = `${start}\n${body}\n${end}`;
  const current = existsSync(BENCHMARKS) ? readFileSync(BENCHMARKS, 'utf8') : '# Benchmarks\n';
  const i = current.indexOf(start);
  const j = current.indexOf(end);
  const next = i >= 0 && j > i ? current.slice(0, i) + block + current.slice(j + end.length) : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(BENCHMARKS, next);
}
