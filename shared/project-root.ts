// The project's root folder, found by name rather than by depth: the nearest folder above a module
// whose package.json is this project's. Modules that locate project files (generated/, prisma/,
// build/) use it, so that they find them the same from their source and from the compiled CLI
// (clients/cli/dist/, which bundles the modules of shared/: scripts/build.mjs).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'content-pipeline';

export function projectRootOf(moduleUrl: string): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (;;) {
    try {
      if ((JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name === PACKAGE_NAME) return dir;
    } catch {
      // no package.json here, or not JSON: keep looking
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json named ${PACKAGE_NAME} above ${fileURLToPath(moduleUrl)}`);
    dir = up;
  }
}
