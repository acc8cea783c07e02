#!/usr/bin/env node
// `npm run bench` (and `npm run bench:soak` = `run.mjs --soak`, `npm run bench -- --uploads` = the upload soak): the benchmark suite of
// scripts/bench. The work is in TypeScript (main.ts, soak.ts), run through tsx. SSE fan-out to
// 5,000 subscribers needs ~5,000 descriptors in this process and as many in the server, so the
// run is re-executed under a raised `ulimit -n` (to the hard limit) when the soft one is short.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const NEEDED_FDS = 16_384;
// `--uploads`: the upload soak of issue 22 (upload-soak.ts) instead of the main suite.
const entry = path.join(here, process.argv.includes('--soak') ? 'soak.ts' : process.argv.includes('--uploads') ? 'upload-soak.ts' : 'main.ts');
const args = process.argv.slice(2).filter((a) => a !== '--soak' && a !== '--uploads');

const soft = Number(spawnSync('bash', ['-c', 'ulimit -Sn'], { encoding: 'utf8' }).stdout.trim()) || 0;
const cmd = [process.execPath, '--import', 'tsx', entry, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
const script = soft >= NEEDED_FDS ? `exec ${cmd}` : `ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec ${cmd}`;
const r = spawnSync('bash', ['-c', script], { stdio: 'inherit', cwd: path.resolve(here, '../..') });
process.exit(r.status ?? 1);
