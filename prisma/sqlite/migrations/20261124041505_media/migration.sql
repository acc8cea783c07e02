-- CreateTable
CREATE TABLE "MediaUpload" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "blobId" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "sizeBytes" INTEGER NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "frames" INTEGER NOT NULL DEFAULT 1,
    "sha256" TEXT NOT NULL,
    "altText" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ArtifactUpload" (
    "artifactId" TEXT NOT NULL,
    "uploadId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,

    PRIMARY KEY ("artifactId", "uploadId")
);

-- AlterTable (an ADD COLUMN rather than Prisma's table redefinition: it leaves any other
-- branch's Artifact columns alone, whatever order the migrations are merged in)
ALTER TABLE "Artifact" ADD COLUMN "media" TEXT NOT NULL DEFAULT '[]';

-- CreateIndex
CREATE INDEX "MediaUpload_createdAt_idx" ON "MediaUpload"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "MediaUpload_workspaceId_idempotencyKey_key" ON "MediaUpload"("workspaceId", "idempotencyKey");

-- CreateIndex
CREATE INDEX "ArtifactUpload_uploadId_idx" ON "ArtifactUpload"("uploadId");

