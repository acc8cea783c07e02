// Which build of `cpa` may run: the compiled one in clients/cli/dist/ (made by
// scripts/build.mjs, which `npm ci` runs) only when it is complete and newer than every source file
// it was made of (dist/manifest.json lists them). Plain JavaScript with no dependency: it runs
// before anything is loaded, at every call (a stat of each of ~60 files, well under a millisecond).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The file URL of the compiled entry point, or why it cannot be used (missing, or older than one
 * of its sources: a stale build must never run in place of the code it was made from).
 */
export function compiledEntry(root = projectRoot, folder = 'clients/cli/dist') {
  const dist = path.join(root, folder);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(dist, 'manifest.json'), 'utf8'));
  } catch {
    return { url: null, why: `${folder} is missing (run \`npm run build\`)` };
  }
  const entry = path.join(dist, manifest.entry);
  let built;
  try {
    built = statSync(entry).mtimeMs;
  } catch {
    return { url: null, why: `${path.relative(root, entry)} is missing (run \`npm run build\`)` };
  }
  for (const input of manifest.inputs) {
    let changed;
    try {
      changed = statSync(path.join(root, input)).mtimeMs;
    } catch {
      changed = Infinity;
    }
    if (changed > built) return { url: null, why: `${folder} is older than ${input} (run \`npm run build\`)` };
  }
  return { url: pathToFileURL(entry).href, why: null };
}
