// Artifacts (the `Artifacts` tag).
import * as artifacts from '../services/artifacts.js';
import * as moves from '../services/artifact-moves.js';
import * as drafting from '../services/drafting.js';
import * as variants from '../services/variants.js';
import { variantView } from '../services/views.js';
import * as media from '../services/artifact-media.js';
import type { ServiceDeps } from '../services/context.js';
import { listArtifactChildren, listArtifacts } from '../services/lists.js';
import { bulkSchedule, bulkTransition } from '../services/bulk.js';
import { commitHook, type HandlersOf } from '../http/typed.js';

export function artifactHandlers(deps: ServiceDeps) {
  return {
    listArtifacts: async (req) => ({ status: 200, body: await listArtifacts(deps, req.caller, req.query) }),

    getArtifact: async (req) => ({ status: 200, body: await artifacts.getArtifact(deps, req.caller, req.path.id) }),

    listArtifactChildren: async (req) => ({ status: 200, body: await listArtifactChildren(deps, req.caller, req.path.id, req.query) }),

    bulkTransitionArtifacts: async (req) => ({ status: 200, body: await bulkTransition(deps, req.caller, req.body) }),

    bulkScheduleArtifacts: async (req) => ({ status: 200, body: await bulkSchedule(deps, req.caller, req.body) }),

    publishArtifact: async (req) => {
      const { idempotency_key: _key, ...body } = req.body;
      return artifacts.publishArtifact(deps, req.caller, req.path.id, body, commitHook(req, 202));
    },

    markArtifactPublished: async (req) => {
      const { idempotency_key: _key, ...body } = req.body;
      return { status: 200, body: await artifacts.markPublished(deps, req.caller, req.path.id, body, commitHook(req, 200)) };
    },

    unscheduleArtifact: async (req) => ({ status: 200, body: await artifacts.unscheduleArtifact(deps, req.caller, req.path.id) }),

    transitionArtifact: async (req) => ({ status: 200, body: await moves.transitionArtifact(deps, req.caller, req.path.id, req.body.to) }),

    draftFromPost: async (req) => ({
      status: 202,
      body: await drafting.draftFromPost(deps, req.caller, req.path.id, req.body, commitHook(req, 202)),
    }),

    putArtifactVariant: async (req) => {
      const { row, created, contentWarning } = await variants.putVariant(deps, req.caller, req.path.id, req.path.platform, req.body);
      const body = variantView(row, contentWarning);
      return created ? { status: 201, body } : { status: 200, body };
    },

    setArtifactMedia: async (req) => ({ status: 200, body: await media.replaceArtifactMedia(deps, req.caller, req.path.id, req.body) }),
  } satisfies HandlersOf<'Artifacts'>;
}
