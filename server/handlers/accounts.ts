// Connected accounts (the `Accounts` tag).
import * as accounts from '../services/accounts.js';
import type { ServiceDeps } from '../services/context.js';
import { listAccounts } from '../services/lists.js';
import type { HandlersOf } from '../http/typed.js';

export function accountHandlers(deps: ServiceDeps) {
  return {
    listAccounts: async (req) => ({ status: 200, body: await listAccounts(deps, req.caller, req.query) }),
    connectAccount: async (req) => ({ status: 200, body: await accounts.connectAccount(deps, req.caller, req.body) }),
  } satisfies HandlersOf<'Accounts'>;
}
