// Imports of data exports (the `Imports` tag): the body is the export's raw bytes, streamed to the service.
import * as imports from '../services/imports.js';
import type { ServiceDeps } from '../services/context.js';
import type { HandlersOf } from '../http/typed.js';

export function importHandlers(deps: ServiceDeps) {
  return {
    createImport: async (req) => {
      const { status, body } = await imports.createImport(deps, req.caller, req.query, req.bodyStream);
      return status === 201 ? { status, body } : { status, body, headers: { 'Idempotent-Replayed': 'true' } };
    },
    getImport: async (req) => ({ status: 200, body: await imports.getImport(deps, req.caller, req.path.id) }),
  } satisfies HandlersOf<'Imports'>;
}
