-- Issue 32: the record of who did what (audit events), newest first per workspace, by subject and by actor.
-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "actorKind" TEXT NOT NULL,
    "actorId" TEXT,
    "actorName" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "subjectType" TEXT,
    "subjectId" TEXT,
    "summary" TEXT NOT NULL,
    "detail" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_createdAt_id_idx" ON "AuditEvent"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_subjectId_createdAt_id_idx" ON "AuditEvent"("workspaceId", "subjectId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_actorId_createdAt_id_idx" ON "AuditEvent"("workspaceId", "actorId", "createdAt", "id");

