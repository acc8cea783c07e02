// Connected accounts (the `Accounts` tag).
import * as accounts from '../services/accounts.js';
import type { ServiceDeps } from '../services/context.js';
import { listAccounts } from '../services/lists.js';
import * as oauth from '../services/oauth/authorizations.js';
import type { HandlersOf } from '../http/typed.js';

export function accountHandlers(deps: ServiceDeps) {
  return {
    listAccounts: async (req) => ({ status: 200, body: await listAccounts(deps, req.caller, req.query) }),
    connectAccount: async (req) => ({ status: 200, body: await accounts.connectAccount(deps, req.caller, req.body) }),
    checkAccount: async (req) => ({ status: 200, body: await accounts.checkAccount(deps, req.caller, req.path.id) }),
    startAccountAuthorization: async (req) => {
      const { authorization, cookie } = await oauth.startAuthorization(deps, req.caller, req.body);
      return cookie ? { status: 201, body: authorization, headers: { 'Set-Cookie': cookie } } : { status: 201, body: authorization };
    },
    getAccountAuthorization: async (req) => ({ status: 200, body: await oauth.getAuthorization(deps, req.caller, req.path.id) }),
    getSignInSettings: async () => ({ status: 200, body: oauth.signInSettings(deps) }),
  } satisfies HandlersOf<'Accounts'>;
}
