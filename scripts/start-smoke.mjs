// The README's run command, checked: `npm start` (preflight, the Redoc page, the server) on a fresh
// data directory serves /api/health, /openapi.json and /docs, writes the agent token file, and
// stops on SIGTERM. Part of `npm test -- --smoke` (CI's pass on the other supported Node).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cp-start-smoke-'));
const base = `http://127.0.0.1:${port}`;
const child = spawn('npm', ['start'], {
  env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' },
  stdio: ['ignore', 'inherit', 'inherit'],
  detached: true, // its own process group: npm, sh, tsx and the server stop together
});
let exited = null;
child.on('exit', (code, signal) => (exited = { code, signal }));

const problems = [];
try {
  const deadline = Date.now() + 120_000;
  let health = null;
  while (!health && !exited && Date.now() < deadline) {
    try {
      const r = await fetch(`${base}/api/health`);
      health = { status: r.status, body: await r.json() };
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  if (!health) throw new Error(exited ? `npm start exited (${JSON.stringify(exited)}) before serving` : 'no answer from /api/health within 120 s');
  if (health.status !== 200 || health.body.status !== 'ok') problems.push(`/api/health answered ${health.status} ${JSON.stringify(health.body)}`);
  const spec = await fetch(`${base}/openapi.json`);
  if (spec.status !== 200 || !(await spec.json()).openapi?.startsWith('3.1')) problems.push(`/openapi.json answered ${spec.status}`);
  const docs = await fetch(`${base}/docs`);
  if (docs.status !== 200 || !(await docs.text()).includes('<html')) problems.push(`/docs answered ${docs.status}`);
  if (!existsSync(path.join(dataDir, 'agent-token'))) problems.push('no agent-token file in DATA_DIR');
} catch (err) {
  problems.push(err.message);
} finally {
  if (!exited) {
    process.kill(-child.pid, 'SIGTERM');
    const stopped = await Promise.race([new Promise((r) => child.on('exit', () => r(true))), new Promise((r) => setTimeout(() => r(false), 20_000))]);
    if (!stopped) {
      problems.push('the server did not stop within 20 s of SIGTERM');
      process.kill(-child.pid, 'SIGKILL');
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
}

if (problems.length) {
  for (const p of problems) console.error(`npm start smoke: ${p}`);
  process.exit(1);
}
console.log(`npm start smoke: ${process.version} served /api/health, /openapi.json and /docs from a fresh DATA_DIR, wrote the token file, stopped on SIGTERM`);
