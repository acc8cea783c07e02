// The registry: every operation of the description, by operationId. The compiler rejects a
// missing or unknown operation (the object literal is checked against `Handlers`).
import type { Handlers } from '../http/typed.js';
import type { ServiceDeps } from '../services/context.js';
import { accountHandlers } from './accounts.js';
import { artifactHandlers } from './artifacts.js';
import { fetchHandlers } from './fetch.js';
import { healthHandlers } from './health.js';
import { pipelineHandlers } from './pipelines.js';
import { postHandlers } from './posts.js';
import { runHandlers } from './runs.js';
import { sessionHandlers } from './sessions.js';
import { diagnoseHandlers } from './diagnose.js';
import { eventHandlers } from './events.js';
import { internalHandlers } from './internal.js';
import { importHandlers } from './imports.js';
import { mediaHandlers } from './media.js';

export function buildHandlers(deps: ServiceDeps): Handlers {
  const p = pipelineHandlers(deps);
  const po = postHandlers(deps);
  const a = artifactHandlers(deps);
  const h = healthHandlers();
  const se = sessionHandlers(deps);
  const d = diagnoseHandlers(deps);
  const f = fetchHandlers(deps);
  return {
    getPipeline: p.getPipeline,
    createPipelineFromIntent: p.createPipelineFromIntent,
    diagnosePipeline: d.diagnosePipeline,
    getPipelineInbox: d.getPipelineInbox,
    listPipelinePosts: po.listPipelinePosts,
    draftFromPost: a.draftFromPost,
    getArtifact: a.getArtifact,
    publishArtifact: a.publishArtifact,
    unscheduleArtifact: a.unscheduleArtifact,
    listPipelineSchedule: a.listPipelineSchedule,
    transitionArtifact: a.transitionArtifact,
    putArtifactVariant: a.putArtifactVariant,
    setArtifactMedia: a.setArtifactMedia,
    connectAccount: accountHandlers(deps).connectAccount,
    createImport: importHandlers(deps).createImport,
    getImport: importHandlers(deps).getImport,
    uploadMedia: mediaHandlers(deps).uploadMedia,
    getMedia: mediaHandlers(deps).getMedia,
    fetchUrl: f.fetchUrl,
    listFetchSchemas: f.listFetchSchemas,
    putFetchSchema: f.putFetchSchema,
    deleteFetchSchema: f.deleteFetchSchema,
    getRun: runHandlers(deps).getRun,
    listSessionActivity: se.listSessionActivity,
    addSessionItem: se.addSessionItem,
    regenerateVariant: se.regenerateVariant,
    refreshSource: se.refreshSource,
    streamEvents: eventHandlers(deps).streamEvents,
    receiveBackendEvent: internalHandlers(deps).receiveBackendEvent,
    receiveScraperMonitorEvent: internalHandlers(deps).receiveScraperMonitorEvent,
    getHealth: h.getHealth,
  };
}
