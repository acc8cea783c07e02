// Fetch (the `Fetch` tag): structure a public page, and the extraction schemas its css and llm modes use.
import type { ServiceDeps } from '../services/context.js';
import { fetchUrl as fetchPage } from '../services/fetch/index.js';
import { deleteSchema, listSchemas, putSchema } from '../services/fetch/schemas.js';
import type { HandlersOf } from '../http/typed.js';

export function fetchHandlers(deps: ServiceDeps) {
  return {
    fetchUrl: async (req) => ({ status: 200, body: await fetchPage(deps, req.caller, req.body) }),

    listFetchSchemas: async (req) => ({ status: 200, body: await listSchemas(deps, req.caller) }),

    putFetchSchema: async (req) => {
      const { created, schema } = await putSchema(deps, req.caller, req.path.id, req.body);
      return created ? { status: 201, body: schema } : { status: 200, body: schema };
    },

    deleteFetchSchema: async (req) => ({ status: 200, body: await deleteSchema(deps, req.caller, req.path.id) }),
  } satisfies HandlersOf<'Fetch'>;
}
