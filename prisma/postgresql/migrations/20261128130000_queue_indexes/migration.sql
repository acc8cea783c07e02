-- Issue 33: the inbox reads a pipeline's drafts in one state oldest first, a page at a time;
-- the genealogy lists an artifact's children. The (pipelineId, state, createdAt, id) index covers
-- what (pipelineId, state) did.
-- DropIndex
DROP INDEX "Artifact_pipelineId_state_idx";

-- CreateIndex
CREATE INDEX "Artifact_pipelineId_state_createdAt_id_idx" ON "Artifact"("pipelineId", "state", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Artifact_parentArtifactId_createdAt_id_idx" ON "Artifact"("parentArtifactId", "createdAt", "id");

