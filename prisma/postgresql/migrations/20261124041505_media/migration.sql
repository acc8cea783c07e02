-- AlterTable
ALTER TABLE "Artifact" ADD COLUMN     "media" TEXT NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "MediaUpload" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MediaUpload_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ArtifactUpload" (
    "artifactId" TEXT NOT NULL,
    "uploadId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,

    CONSTRAINT "ArtifactUpload_pkey" PRIMARY KEY ("artifactId","uploadId")
);

-- CreateIndex
CREATE INDEX "MediaUpload_createdAt_idx" ON "MediaUpload"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "MediaUpload_workspaceId_idempotencyKey_key" ON "MediaUpload"("workspaceId", "idempotencyKey");

-- CreateIndex
CREATE INDEX "ArtifactUpload_uploadId_idx" ON "ArtifactUpload"("uploadId");

