-- AlterTable
ALTER TABLE "Run" ADD COLUMN "progressDone" INTEGER;
ALTER TABLE "Run" ADD COLUMN "progressTotal" INTEGER;
ALTER TABLE "Run" ADD COLUMN "errorUpstreamStatus" INTEGER;

-- CreateTable
CREATE TABLE "Import" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "container" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "sizeBytes" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "blobId" TEXT,
    "includeNonPublic" BOOLEAN NOT NULL DEFAULT false,
    "summary" TEXT NOT NULL,
    "ownUserId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "BlobChunk" (
    "blobId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BLOB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("blobId", "seq")
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_SourcePost" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "pipelineId" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "url" TEXT,
    "text" TEXT NOT NULL,
    "publishedAt" DATETIME NOT NULL,
    "likes" INTEGER NOT NULL DEFAULT 0,
    "reposts" INTEGER NOT NULL DEFAULT 0,
    "replies" INTEGER NOT NULL DEFAULT 0,
    "quotes" INTEGER NOT NULL DEFAULT 0,
    "artifactCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "visibility" TEXT NOT NULL DEFAULT 'public',
    "media" TEXT NOT NULL DEFAULT '[]',
    "replyTo" TEXT
);
INSERT INTO "new_SourcePost" ("artifactCount", "createdAt", "externalId", "id", "likes", "pipelineId", "platform", "publishedAt", "quotes", "replies", "reposts", "text", "updatedAt", "url", "workspaceId") SELECT "artifactCount", "createdAt", "externalId", "id", "likes", "pipelineId", "platform", "publishedAt", "quotes", "replies", "reposts", "text", "updatedAt", "url", "workspaceId" FROM "SourcePost";
DROP TABLE "SourcePost";
ALTER TABLE "new_SourcePost" RENAME TO "SourcePost";
CREATE INDEX "SourcePost_pipelineId_publishedAt_id_idx" ON "SourcePost"("pipelineId", "publishedAt", "id");
CREATE UNIQUE INDEX "SourcePost_pipelineId_externalId_key" ON "SourcePost"("pipelineId", "externalId");
CREATE TABLE "new_Artifact" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "pipelineId" TEXT NOT NULL,
    "sourcePostId" TEXT NOT NULL,
    "parentArtifactId" TEXT,
    "rootArtifactId" TEXT NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "ancestors" TEXT NOT NULL DEFAULT '[]',
    "sourcePostIds" TEXT NOT NULL DEFAULT '[]',
    "text" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "publishedAt" DATETIME,
    "publishedUrl" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "sourceVisibility" TEXT NOT NULL DEFAULT 'public'
);
INSERT INTO "new_Artifact" ("ancestors", "createdAt", "generation", "id", "parentArtifactId", "pipelineId", "publishedAt", "publishedUrl", "rootArtifactId", "sourcePostId", "sourcePostIds", "state", "text", "updatedAt", "workspaceId") SELECT "ancestors", "createdAt", "generation", "id", "parentArtifactId", "pipelineId", "publishedAt", "publishedUrl", "rootArtifactId", "sourcePostId", "sourcePostIds", "state", "text", "updatedAt", "workspaceId" FROM "Artifact";
DROP TABLE "Artifact";
ALTER TABLE "new_Artifact" RENAME TO "Artifact";
CREATE INDEX "Artifact_workspaceId_idx" ON "Artifact"("workspaceId");
CREATE INDEX "Artifact_pipelineId_state_idx" ON "Artifact"("pipelineId", "state");
CREATE INDEX "Artifact_sourcePostId_idx" ON "Artifact"("sourcePostId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Import_workspaceId_handle_createdAt_idx" ON "Import"("workspaceId", "handle", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Import_workspaceId_idempotencyKey_key" ON "Import"("workspaceId", "idempotencyKey");

