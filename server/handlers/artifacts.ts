// Artifacts.
import * as artifacts from '../services/artifacts.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, type Handler } from '../http/typed.js';

export function artifactHandlers(deps: ServiceDeps) {
  const getArtifact: Handler<'getArtifact'> = async (req) => ({
    status: 200,
    body: await artifacts.getArtifact(deps, callerOf(req), req.path.id),
  });

  const publishArtifact: Handler<'publishArtifact'> = async (req) => ({
    status: 200,
    body: await artifacts.publishArtifact(deps, callerOf(req), req.path.id),
  });
  return { getArtifact, publishArtifact };
}
