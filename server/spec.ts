// The descriptions the server serves (shared/spec.ts loads them; `cpa mcp` uses the same loader),
// and the partner docs page built from the public one.
import path from 'node:path';
import { projectRoot } from '../shared/spec.js';

export { loadSpec } from '../shared/spec.js';

export const docsFile = path.join(projectRoot, 'build', 'docs.html');
/** The review desk's static files (scripts/build.mjs `desk`). */
export const deskDir = path.join(projectRoot, 'build', 'desk');
