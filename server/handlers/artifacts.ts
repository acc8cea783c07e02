// Artifacts.
import * as artifacts from '../services/artifacts.js';
import * as moves from '../services/artifact-moves.js';
import * as drafting from '../services/drafting.js';
import * as variants from '../services/variants.js';
import { variantView } from '../services/views.js';
import * as media from '../services/artifact-media.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, commitHook, type Handler } from '../http/typed.js';

export function artifactHandlers(deps: ServiceDeps) {
  const getArtifact: Handler<'getArtifact'> = async (req) => ({
    status: 200,
    body: await artifacts.getArtifact(deps, callerOf(req), req.path.id),
  });

  const publishArtifact: Handler<'publishArtifact'> = async (req) => {
    const { idempotency_key: _key, ...body } = req.body;
    return artifacts.publishArtifact(deps, callerOf(req), req.path.id, body, commitHook(req, 202));
  };

  const unscheduleArtifact: Handler<'unscheduleArtifact'> = async (req) => ({
    status: 200,
    body: await artifacts.unscheduleArtifact(deps, callerOf(req), req.path.id),
  });

  const listPipelineSchedule: Handler<'listPipelineSchedule'> = async (req) => ({
    status: 200,
    body: await artifacts.listSchedule(deps, callerOf(req), req.path.id),
  });

  const transitionArtifact: Handler<'transitionArtifact'> = async (req) => ({
    status: 200,
    body: await moves.transitionArtifact(deps, callerOf(req), req.path.id, req.body.to),
  });

  const draftFromPost: Handler<'draftFromPost'> = async (req) => ({
    status: 202,
    body: await drafting.draftFromPost(deps, callerOf(req), req.path.id, req.body, commitHook(req, 202)),
  });

  const putArtifactVariant: Handler<'putArtifactVariant'> = async (req) => {
    const { row, created } = await variants.putVariant(deps, callerOf(req), req.path.id, req.path.platform, req.body);
    return created ? { status: 201, body: variantView(row) } : { status: 200, body: variantView(row) };
  };
  const setArtifactMedia: Handler<'setArtifactMedia'> = async (req) => ({
    status: 200,
    body: await media.replaceArtifactMedia(deps, callerOf(req), req.path.id, req.body),
  });
  return { getArtifact, publishArtifact, unscheduleArtifact, listPipelineSchedule, transitionArtifact, draftFromPost, putArtifactVariant, setArtifactMedia };
}
