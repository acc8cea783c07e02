// The bundled descriptions (made by `npm run generate` from openapi/): the runtime one, which the
// server's validator uses, and the public one served at /openapi.json (and the one `cpa mcp` falls
// back to when the server cannot be reached).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRootOf } from './project-root.js';

export const projectRoot = projectRootOf(import.meta.url);

export function loadSpec(kind: 'runtime' | 'public'): Record<string, unknown> {
  const file = path.join(projectRoot, 'generated', kind === 'runtime' ? 'openapi.json' : 'openapi.public.json');
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}
