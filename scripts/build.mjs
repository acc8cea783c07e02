// `npm run build` (and `npm ci`, through postinstall): what the project runs is built once, not at
// every start or every call.
//   cli   clients/cli/src → clients/cli/dist/ (esbuild: one ES module and lazily loaded chunks),
//         with dist/manifest.json listing every source file it was made of, so that the `cpa`
//         launcher (clients/cli/bin/compiled.js) can tell a stale build from a fresh one.
//   docs  generated/openapi.public.json → build/docs.html (Redoc by @redocly/cli), self-contained:
//         Redoc's script inlined, no telemetry, no request to any other host (see buildDocs).
//   server server/ → build/server/ (esbuild, the same way): what `npm start` runs, with source maps.
// Usage: node scripts/build.mjs [cli] [server] [docs] [--if-stale]   (no target: all)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { compiledEntry } from '../clients/cli/bin/compiled.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const cliDist = path.join(root, 'clients/cli/dist');
export const docsFile = path.join(root, 'build/docs.html');
export const deskDir = path.join(root, 'build/desk');

const mtime = (f) => {
  try {
    return statSync(f).mtimeMs;
  } catch {
    return Infinity; // a missing input counts as changed
  }
};
/** True when `output` exists and is newer than every one of `inputs`. */
const fresh = (output, inputs) => existsSync(output) && inputs.every((i) => mtime(i) <= statSync(output).mtimeMs);

// npm packages that every `cpa` call loads, bundled in: resolving and loading their files one by
// one (CommonJS ones through Node's export scanner) was about a third of `cpa --help`'s own
// start-up. Small, pure JavaScript; everything else (Prisma, pg, better-sqlite3, the MCP SDK, …)
// stays an import, loaded from node_modules only by the commands that need it.
const BUNDLED_PACKAGES = new Set(['commander', '@commander-js/extra-typings', 'openapi-fetch', 'cli-table3', 'eventsource-parser']);
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const externalPackages = (bundled) => ({
  name: 'external-packages',
  setup(build) {
    // `#…` specifiers are the package's own modules (package.json "imports"): bundled like ours.
    build.onResolve({ filter: /^[^./#]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      // a bundled package's own dependencies come with it
      if (args.importer.includes(`${path.sep}node_modules${path.sep}`) || bundled.has(packageOf(args.path))) return undefined;
      return { external: true };
    });
  },
});

/**
 * One program bundled by esbuild (the compiler tsx itself runs on, so no second TypeScript
 * dialect) into `outFolder`: our own modules (and `bundledPackages`) in, other npm packages left
 * as imports. Dynamic imports become chunks, so that `cpa --help` does not load the database layer
 * or the MCP SDK. Writes `manifest.json` (the entry and every source file it was made of) for
 * `compiledEntry`, and swaps the folder in whole: a process started meanwhile sees the old build
 * or the new one.
 */
async function bundle({ entry, outFolder, bundledPackages }) {
  const esbuild = await import('esbuild');
  const dist = path.join(root, outFolder);
  const tmp = `${dist}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: entry },
    outdir: tmp,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [externalPackages(bundledPackages)],
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    banner: {
      // CommonJS packages bundled into ES modules call require() for Node's built-ins.
      js: `// Built by scripts/build.mjs from ${entry}: never edit; \`npm run build\` remakes it.\nimport { createRequire as __cpaRequire } from 'node:module'; const require = __cpaRequire(import.meta.url);`,
    },
  });
  // Inputs as project-relative paths (esbuild's are relative to absWorkingDir already).
  const inputs = Object.keys(result.metafile.inputs)
    .filter((f) => !f.includes('node_modules/'))
    .sort();
  writeFileSync(path.join(tmp, 'manifest.json'), `${JSON.stringify({ entry: 'main.js', inputs }, null, 2)}\n`);
  const old = `${dist}.old-${process.pid}`;
  if (existsSync(dist)) renameSync(dist, old);
  mkdirSync(path.dirname(dist), { recursive: true });
  renameSync(tmp, dist);
  rmSync(old, { recursive: true, force: true });
  return inputs.length;
}

/** The CLI, with the few packages every call loads bundled in (BUNDLED_PACKAGES). */
export const buildCli = () => bundle({ entry: 'clients/cli/src/main.ts', outFolder: 'clients/cli/dist', bundledPackages: BUNDLED_PACKAGES });

export const serverDist = path.join(root, 'build/server');
/**
 * The server, what `npm start` runs: compiled once instead of by tsx at every start (tsx compiled
 * ~150 modules on each start). No package bundled in: the server loads what it needs from
 * node_modules, as under tsx. Stack traces name the TypeScript lines through the linked source
 * maps (`node --enable-source-maps`, which `npm start` passes).
 */
export const buildServer = () => bundle({ entry: 'server/main.ts', outFolder: 'build/server', bundledPackages: new Set() });

const docsInputs = [
  path.join(root, 'generated/openapi.public.json'),
  fileURLToPath(import.meta.url),
  path.join(root, 'node_modules/@redocly/cli/package.json'),
];

// Assets the Redoc bundle fetches from Redocly's CDN whatever the options: the "API docs by
// Redocly" logo. Replaced by an inline image, so that the page asks no other host for anything.
const logo = (text) =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" width="${text.length * 8}" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12" fill="#6b6b6b">${text}</text></svg>`)}`;
const cdnAssets = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': logo('Redocly'),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': logo('R'),
};

/**
 * The partner docs as one HTML file that works offline: `--inlineBundle` embeds Redoc's
 * standalone script (the one @redocly/cli ships, pinned by package-lock.json) instead of loading
 * it from a CDN; REDOCLY_TELEMETRY=off sets Redoc's `disableTelemetry` (and keeps the CLI's own
 * telemetry quiet); the CDN logo is inlined; prerendered links point into the page. The server adds a Content-Security-Policy that
 * allows nothing but this page and its own origin (server/app.ts), and test/e2e/docs-browser.test.ts
 * loads the page in Chromium with every other host blocked.
 */
export function buildDocs() {
  mkdirSync(path.dirname(docsFile), { recursive: true });
  const tmp = `${docsFile}.tmp-${process.pid}`;
  const redocly = path.join(root, 'node_modules/@redocly/cli/bin/cli.js');
  const r = spawnSync(process.execPath, [redocly, 'build-docs', 'generated/openapi.public.json', '--inlineBundle', '-o', tmp], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  if (r.status !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`redocly build-docs failed:\n${r.stdout}\n${r.stderr}`);
  }
  let html = readFileSync(tmp, 'utf8');
  rmSync(tmp, { force: true });
  for (const [url, inline] of Object.entries(cdnAssets)) html = html.replaceAll(url, inline);
  // The prerendered sidebar links are server paths (`/section/errors`, `/pipelines`), which this
  // server answers with a JSON 404 when one is opened in a new tab; the page itself routes on the
  // fragment (`/docs#/section/errors`, what the hydrated links become). Write them that way.
  const cut = html.indexOf('<script type="module">');
  if (cut < 0) throw new Error('redocly build-docs: no Redoc module script in the page');
  html = html.slice(0, cut).replace(/\shref="\/(?!\/)/g, ' href="#/') + html.slice(cut);
  // What makes the page self-contained, checked here so that an upgrade of @redocly/cli that
  // changes it fails the build rather than ship a page that needs the internet.
  const problems = [];
  if (!html.includes('"disableTelemetry":true')) problems.push('Redoc telemetry is not disabled');
  if (/<(script|link)\b[^>]*\b(src|href)=["']?https?:/i.test(html)) problems.push('a script or stylesheet is loaded from another host');
  if (/fonts\.(googleapis|gstatic)\.com/.test(html)) problems.push('a font is loaded from Google');
  if (html.includes('cdn.redoc.ly')) problems.push('an asset is loaded from cdn.redoc.ly');
  if (problems.length) throw new Error(`build/docs.html would not be self-contained: ${problems.join('; ')}`);
  writeFileSync(tmp, html);
  renameSync(tmp, docsFile);
  return Buffer.byteLength(html);
}

/** Every file under `dir`, recursively (the desk's sources, to tell a stale build). */
const filesUnder = (dir) =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.join(e.parentPath, e.name))
    : [];

/**
 * The review desk (docs/desk.md): desk/src/main.tsx bundled for browsers by esbuild (its own JSX,
 * Preact's runtime; no second toolchain), minified, with its stylesheet; desk/index.html copied.
 * Everything the page loads comes from this server: the Content-Security-Policy of
 * server/http/desk.ts allows nothing else. Answers the sizes, which docs/desk.md reports.
 */
export async function buildDesk() {
  const esbuild = await import('esbuild');
  const tmp = `${deskDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: 'desk/src/main.tsx', style: 'desk/src/style.css' },
    outdir: tmp,
    bundle: true,
    format: 'esm',
    splitting: true,
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    chunkNames: 'chunk-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [browserOnly],
  });
  writeFileSync(path.join(tmp, 'index.html'), readFileSync(path.join(root, 'desk/index.html')));
  writeFileSync(path.join(tmp, 'favicon.ico'), readFileSync(path.join(root, 'desk/favicon.ico')));
  precompress(tmp);
  const old = `${deskDir}.old-${process.pid}`;
  if (existsSync(deskDir)) renameSync(deskDir, old);
  renameSync(tmp, deskDir);
  rmSync(old, { recursive: true, force: true });
  return Object.fromEntries(Object.entries(result.metafile.outputs).map(([f, o]) => [path.basename(f), o.bytes]));
}

/**
 * Each script and stylesheet of the desk also as `.br` (Brotli, best quality) and `.gz` (gzip,
 * level 9), made once here rather than at every request: server/http/desk.ts sends the one the
 * browser's Accept-Encoding takes (scripts are about a third of their size gzip'd, less in Brotli).
 */
function precompress(dir) {
  for (const name of readdirSync(dir)) {
    if (!/\.(js|css)$/.test(name)) continue;
    const bytes = readFileSync(path.join(dir, name));
    writeFileSync(
      path.join(dir, `${name}.br`),
      brotliCompressSync(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    );
    writeFileSync(path.join(dir, `${name}.gz`), gzipSync(bytes, { level: 9 }));
  }
}

// The desk imports the typed client's browser entry (clients/typescript/src/browser.ts), not its
// index, which also re-exports the Node helpers (uploads from a path: node:fs, node:stream). A Node
// built-in that still reaches the bundle resolves to this empty module without side effects, so
// that esbuild drops what uses it; a use that survived is a build error (the module exports
// nothing by the name imported).
const browserOnly = {
  name: 'browser-only',
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'node-builtin', sideEffects: false }));
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, () => ({
      contents: 'export const createReadStream = undefined, statSync = undefined, Readable = undefined, Transform = undefined;',
      loader: 'js',
    }));
  },
};

async function main() {
  const args = process.argv.slice(2);
  const ifStale = args.includes('--if-stale');
  const targets = args.filter((a) => !a.startsWith('--'));
  const want = (t) => targets.length === 0 || targets.includes(t);
  for (const t of targets) if (!['cli', 'server', 'docs', 'desk'].includes(t)) throw new Error(`unknown target ${t} (cli, server, docs, desk)`);
  if (want('cli')) {
    const upToDate = compiledEntry(root).url !== null && fresh(path.join(cliDist, 'main.js'), [fileURLToPath(import.meta.url)]);
    if (!(ifStale && upToDate)) await buildCli();
  }
  if (want('server')) {
    const upToDate = compiledEntry(root, 'build/server').url !== null && fresh(path.join(serverDist, 'main.js'), [fileURLToPath(import.meta.url)]);
    if (!(ifStale && upToDate)) await buildServer();
  }
  if (want('docs')) {
    if (!existsSync(path.join(root, 'node_modules/@redocly/cli'))) {
      // `npm ci --omit=dev`: no docs builder; /docs then answers 503 saying how to build it.
      console.error('build: @redocly/cli is not installed (dev dependency); skipping build/docs.html');
    } else if (!(ifStale && fresh(docsFile, docsInputs))) {
      buildDocs();
    }
  }
  if (want('desk')) {
    const inputs = [...filesUnder(path.join(root, 'desk')), ...filesUnder(path.join(root, 'clients/typescript/src')), fileURLToPath(import.meta.url)];
    if (!(ifStale && fresh(path.join(deskDir, 'index.html'), inputs))) await buildDesk();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`build: ${err.message}`);
    process.exit(1);
  });
}
