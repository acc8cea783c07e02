-- AlterTable
ALTER TABLE "Artifact" ADD COLUMN     "publishErrorCode" TEXT,
ADD COLUMN     "publishErrorMessage" TEXT,
ADD COLUMN     "publishRunId" TEXT,
ADD COLUMN     "scheduledAt" TIMESTAMP(3),
ADD COLUMN     "scheduledLocal" TEXT,
ADD COLUMN     "scheduledZone" TEXT;

-- CreateTable
CREATE TABLE "PublishedPart" (
    "artifactId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "externalId" TEXT NOT NULL,
    "cid" TEXT,
    "url" TEXT,
    "postedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PublishedPart_pkey" PRIMARY KEY ("artifactId","position")
);

-- CreateIndex
CREATE INDEX "Artifact_workspaceId_state_scheduledAt_idx" ON "Artifact"("workspaceId", "state", "scheduledAt");

