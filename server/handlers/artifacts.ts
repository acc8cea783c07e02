// Artifacts.
import * as artifacts from '../services/artifacts.js';
import * as moves from '../services/artifact-moves.js';
import * as drafting from '../services/drafting.js';
import * as media from '../services/artifact-media.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, commitHook, type Handler } from '../http/typed.js';

export function artifactHandlers(deps: ServiceDeps) {
  const getArtifact: Handler<'getArtifact'> = async (req) => ({
    status: 200,
    body: await artifacts.getArtifact(deps, callerOf(req), req.path.id),
  });

  const publishArtifact: Handler<'publishArtifact'> = async (req) => ({
    status: 200,
    body: await artifacts.publishArtifact(deps, callerOf(req), req.path.id, { confirmNonPublic: req.body.confirm_non_public === true }),
  });

  const transitionArtifact: Handler<'transitionArtifact'> = async (req) => ({
    status: 200,
    body: await moves.transitionArtifact(deps, callerOf(req), req.path.id, req.body.to),
  });

  const draftFromPost: Handler<'draftFromPost'> = async (req) => ({
    status: 202,
    body: await drafting.draftFromPost(deps, callerOf(req), req.path.id, req.body, commitHook(req, 202)),
  });
  const setArtifactMedia: Handler<'setArtifactMedia'> = async (req) => ({
    status: 200,
    body: await media.replaceArtifactMedia(deps, callerOf(req), req.path.id, req.body),
  });
  return { getArtifact, publishArtifact, transitionArtifact, draftFromPost, setArtifactMedia };
}
