// Connected accounts.
import * as accounts from '../services/accounts.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, type Handler } from '../http/typed.js';

export function accountHandlers(deps: ServiceDeps) {
  const connectAccount: Handler<'connectAccount'> = async (req) => ({
    status: 200,
    body: await accounts.connectAccount(deps, callerOf(req), req.body),
  });
  return { connectAccount };
}
