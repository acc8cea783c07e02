// The registry: every operation of the description, by operationId. Each module serves one tag of
// the description and `satisfies` its slice (`HandlersOf<'Tag'>`, from generated/operations.ts):
// the compiler names an operation a module lacks or one it has that its tag does not, and the
// spread below `satisfies Handlers`, so a module left out here is a compile error too.
import type { Handlers } from '../http/typed.js';
import type { EventStreams } from '../events/hub.js';
import type { ServiceDeps } from '../services/context.js';
import { accountHandlers } from './accounts.js';
import { artifactHandlers } from './artifacts.js';
import { auditHandlers } from './audit.js';
import { calendarHandlers } from './calendar.js';
import { deskHandlers } from './desk.js';
import { eventHandlers } from './events.js';
import { fetchHandlers } from './fetch.js';
import { healthHandlers } from './health.js';
import { importHandlers } from './imports.js';
import { internalHandlers } from './internal.js';
import { mediaHandlers } from './media.js';
import { pipelineHandlers } from './pipelines.js';
import { postHandlers } from './posts.js';
import { runHandlers } from './runs.js';
import { sessionHandlers } from './sessions.js';
import { tokenHandlers } from './tokens.js';
import { workspaceHandlers } from './workspace.js';

/** What the handlers are built from: the services' dependencies, and the event hub that serves the streams. */
export interface HandlerDeps extends ServiceDeps {
  streams: EventStreams;
}

export function buildHandlers(deps: HandlerDeps): Handlers {
  return {
    ...accountHandlers(deps),
    ...artifactHandlers(deps),
    ...auditHandlers(deps),
    ...calendarHandlers(deps),
    ...deskHandlers(deps),
    ...eventHandlers(deps, deps.streams),
    ...fetchHandlers(deps),
    ...healthHandlers(deps),
    ...importHandlers(deps),
    ...internalHandlers(deps),
    ...mediaHandlers(deps),
    ...pipelineHandlers(deps),
    ...postHandlers(deps),
    ...runHandlers(deps),
    ...sessionHandlers(deps),
    ...tokenHandlers(deps),
    ...workspaceHandlers(deps),
  } satisfies Handlers;
}
