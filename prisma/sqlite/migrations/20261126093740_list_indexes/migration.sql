-- CreateIndex
CREATE INDEX "Pipeline_workspaceId_createdAt_id_idx" ON "Pipeline"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Run_workspaceId_createdAt_id_idx" ON "Run"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Run_pipelineId_createdAt_id_idx" ON "Run"("pipelineId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Artifact_workspaceId_createdAt_id_idx" ON "Artifact"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Import_workspaceId_createdAt_id_idx" ON "Import"("workspaceId", "createdAt", "id");

