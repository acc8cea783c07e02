// Imports of data exports (the `Imports` tag): the body is the export's raw bytes, streamed to the service.
import * as imports from '../services/imports.js';
import type { ServiceDeps } from '../services/context.js';
import { listImports } from '../services/lists.js';
import { uploadReply, type HandlersOf } from '../http/typed.js';

export function importHandlers(deps: ServiceDeps) {
  return {
    listImports: async (req) => ({ status: 200, body: await listImports(deps, req.caller, req.query) }),
    createImport: async (req) => uploadReply(await imports.createImport(deps, req.caller, req.query, req.bodyStream)),
    getImport: async (req) => ({ status: 200, body: await imports.getImport(deps, req.caller, req.path.id) }),
  } satisfies HandlersOf<'Imports'>;
}
