#!/usr/bin/env node
// Builds the typed client as an installable package (clients/typescript/dist): JavaScript and
// declarations compiled by tsc from clients/typescript/src, with the types generated from the
// contract (generated/api.ts) carried inside the package as dist/api.d.ts, so that a project
// outside this repository type-checks with its default settings. Run by the package's `prepack`
// (`npm pack ./clients/typescript`) and by `npm run build:client`. The package's version is the
// contract's (openapi/openapi.yaml info.version), checked here.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = path.join(root, 'clients/typescript');
const dist = path.join(pkgDir, 'dist');

export function contractVersion() {
  const m = /^info:\s*\n(?:[ \t]+.*\n)*?[ \t]+version:\s*['"]?([^'"\s]+)/m.exec(readFileSync(path.join(root, 'openapi/openapi.yaml'), 'utf8'));
  if (!m) throw new Error('openapi/openapi.yaml has no info.version');
  return m[1];
}

export function buildClient() {
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  if (pkg.version !== contractVersion())
    throw new Error(`clients/typescript/package.json version ${pkg.version} is not the contract's ${contractVersion()} (openapi/openapi.yaml info.version)`);
  // Stage the sources with the generated types beside them (the repository's path to them is
  // three levels up; inside the package they are ./api.js).
  // Inside the repository (build/ is ignored), so that the packages resolve from its node_modules.
  mkdirSync(path.join(root, 'build'), { recursive: true });
  const stage = mkdtempSync(path.join(root, 'build', 'client-stage-'));
  try {
    const src = path.join(stage, 'src');
    mkdirSync(src);
    for (const f of readdirSync(path.join(pkgDir, 'src'))) {
      if (!f.endsWith('.ts')) continue;
      const text = readFileSync(path.join(pkgDir, 'src', f), 'utf8').replaceAll("'../../../generated/api.js'", "'./api.js'");
      if (text.includes('../')) throw new Error(`clients/typescript/src/${f} imports from outside the package`);
      writeFileSync(path.join(src, f), text);
    }
    cpSync(path.join(root, 'generated/api.ts'), path.join(src, 'api.ts'));
    const out = path.join(stage, 'dist');
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const r = spawnSync(
      process.execPath,
      [
        tsc,
        '--rootDir',
        src,
        '--outDir',
        out,
        '--declaration',
        '--target',
        'ES2022',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        '--strict',
        '--skipLibCheck',
        '--types',
        'node',
        '--typeRoots',
        path.join(root, 'node_modules/@types'),
        ...readdirSync(src).map((f) => path.join(src, f)),
      ],
      { cwd: root, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`tsc failed building the client:\n${r.stdout}${r.stderr}`);
    rmSync(dist, { recursive: true, force: true });
    cpSync(out, dist, { recursive: true });
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return dist;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.error(`[build-client] ${path.relative(root, buildClient())}`);
}
