-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "progressDone" INTEGER,
ADD COLUMN     "progressTotal" INTEGER,
ADD COLUMN     "errorUpstreamStatus" INTEGER;

-- AlterTable
ALTER TABLE "SourcePost" ADD COLUMN     "media" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "replyTo" TEXT,
ADD COLUMN     "visibility" TEXT NOT NULL DEFAULT 'public';

-- AlterTable
ALTER TABLE "Artifact" ADD COLUMN     "sourceVisibility" TEXT NOT NULL DEFAULT 'public';

-- CreateTable
CREATE TABLE "Import" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Import_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BlobChunk" (
    "blobId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BlobChunk_pkey" PRIMARY KEY ("blobId","seq")
);

-- CreateIndex
CREATE INDEX "Import_workspaceId_handle_createdAt_idx" ON "Import"("workspaceId", "handle", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Import_workspaceId_idempotencyKey_key" ON "Import"("workspaceId", "idempotencyKey");

