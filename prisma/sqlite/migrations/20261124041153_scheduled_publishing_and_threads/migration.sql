-- AlterTable
ALTER TABLE "Artifact" ADD COLUMN "publishErrorCode" TEXT;
ALTER TABLE "Artifact" ADD COLUMN "publishErrorMessage" TEXT;
ALTER TABLE "Artifact" ADD COLUMN "publishRunId" TEXT;
ALTER TABLE "Artifact" ADD COLUMN "scheduledAt" DATETIME;
ALTER TABLE "Artifact" ADD COLUMN "scheduledLocal" TEXT;
ALTER TABLE "Artifact" ADD COLUMN "scheduledZone" TEXT;

-- CreateTable
CREATE TABLE "PublishedPart" (
    "artifactId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "externalId" TEXT NOT NULL,
    "cid" TEXT,
    "url" TEXT,
    "postedAt" DATETIME NOT NULL,

    PRIMARY KEY ("artifactId", "position")
);

-- CreateIndex
CREATE INDEX "Artifact_workspaceId_state_scheduledAt_idx" ON "Artifact"("workspaceId", "state", "scheduledAt");

