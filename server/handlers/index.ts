// The registry: every operation of the description, by operationId. The compiler rejects a
// missing or unknown operation (the object literal is checked against `Handlers`).
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Handlers } from '../http/typed.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { ServiceDeps } from '../services/context.js';
import { artifactHandlers } from './artifacts.js';
import { healthHandlers } from './health.js';
import { pipelineHandlers } from './pipelines.js';
import { postHandlers } from './posts.js';
import { pendingHandlers } from './pending.js';

export interface HandlerEnv {
  config: Config;
  lifecycle: Lifecycle;
  logger: Logger;
}

export function buildHandlers(deps: ServiceDeps, env: HandlerEnv): Handlers {
  void env;
  const p = pipelineHandlers(deps);
  const po = postHandlers(deps);
  const a = artifactHandlers(deps);
  const h = healthHandlers();
  const x = pendingHandlers();
  return {
    getPipeline: p.getPipeline,
    createPipelineFromIntent: p.createPipelineFromIntent,
    diagnosePipeline: x.diagnosePipeline,
    getPipelineInbox: x.getPipelineInbox,
    listPipelinePosts: po.listPipelinePosts,
    draftFromPost: x.draftFromPost,
    getArtifact: a.getArtifact,
    publishArtifact: a.publishArtifact,
    connectAccount: x.connectAccount,
    fetchUrl: x.fetchUrl,
    listSessionActivity: x.listSessionActivity,
    addSessionItem: x.addSessionItem,
    regenerateVariant: x.regenerateVariant,
    refreshSource: x.refreshSource,
    streamEvents: x.streamEvents,
    receiveBackendEvent: x.receiveBackendEvent,
    receiveScraperMonitorEvent: x.receiveScraperMonitorEvent,
    getHealth: h.getHealth,
  };
}
