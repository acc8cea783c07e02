-- Destinations apart from sources (issue 23). A pipeline gets default destinations (null: its own
-- account, as before), an artifact gets one ArtifactDestination row per destination, and its
-- published parts and their images are keyed by destination. Existing data is carried over: the
-- parts and publish state of every artifact handed to a publish run become the destination rows
-- of its pipeline's own account (the only account that could have posted them).

-- AlterTable
ALTER TABLE "Pipeline" ADD COLUMN     "destinations" TEXT;

-- CreateTable
CREATE TABLE "ArtifactDestination" (
    "artifactId" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "accountId" TEXT,
    "platform" TEXT NOT NULL,
    "handle" TEXT,
    "position" INTEGER NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL,
    "runId" TEXT,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "nextAttemptAt" TIMESTAMP(3),
    "publishedAt" TIMESTAMP(3),
    "url" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ArtifactDestination_pkey" PRIMARY KEY ("artifactId","destination")
);

-- The account of each pipeline that posts (its handle as connected: the adapters normalize it,
-- so the comparison ignores case and a leading @).
CREATE TEMP TABLE "_PipelineAccount" AS
SELECT p."id" AS "pipelineId", p."platform" AS "platform", p."handle" AS "handle",
  (SELECT acc."id" FROM "Account" acc
     WHERE acc."workspaceId" = p."workspaceId" AND acc."platform" = p."platform"
       AND (lower(acc."handle") = lower(p."handle") OR lower(acc."handle") = '@' || lower(p."handle") OR '@' || lower(acc."handle") = lower(p."handle"))
     ORDER BY acc."id" LIMIT 1) AS "accountId"
FROM "Pipeline" p
WHERE p."platform" IN ('mastodon', 'bluesky');
ALTER TABLE "_PipelineAccount" ADD COLUMN "destination" TEXT;
UPDATE "_PipelineAccount" SET "destination" = COALESCE("accountId", 'unknown:' || "platform");

INSERT INTO "ArtifactDestination" ("artifactId", "destination", "workspaceId", "accountId", "platform", "handle", "position", "state", "runId", "errorCode", "errorMessage", "publishedAt", "url", "createdAt", "updatedAt")
SELECT a."id", pa."destination", a."workspaceId", pa."accountId", pa."platform", pa."handle", 0,
  CASE a."state" WHEN 'published' THEN 'live' WHEN 'publish_failed' THEN 'failed' WHEN 'scheduled' THEN 'scheduled' WHEN 'publishing' THEN 'publishing' ELSE 'pending' END,
  a."publishRunId", a."publishErrorCode", a."publishErrorMessage", a."publishedAt", a."publishedUrl", a."updatedAt", a."updatedAt"
FROM "Artifact" a JOIN "_PipelineAccount" pa ON pa."pipelineId" = a."pipelineId"
WHERE a."publishRunId" IS NOT NULL;

-- AlterTable
ALTER TABLE "PublishedPart" DROP CONSTRAINT "PublishedPart_pkey", ADD COLUMN "destination" TEXT;
UPDATE "PublishedPart" pp SET "destination" = COALESCE(
  (SELECT pa."destination" FROM "Artifact" a JOIN "_PipelineAccount" pa ON pa."pipelineId" = a."pipelineId" WHERE a."id" = pp."artifactId"), 'unknown:part');
ALTER TABLE "PublishedPart" ALTER COLUMN "destination" SET NOT NULL,
ADD CONSTRAINT "PublishedPart_pkey" PRIMARY KEY ("artifactId", "destination", "position");

-- AlterTable
ALTER TABLE "PublishedPartMedia" DROP CONSTRAINT "PublishedPartMedia_pkey", ADD COLUMN "destination" TEXT;
UPDATE "PublishedPartMedia" pm SET "destination" = COALESCE(
  (SELECT pa."destination" FROM "Artifact" a JOIN "_PipelineAccount" pa ON pa."pipelineId" = a."pipelineId" WHERE a."id" = pm."artifactId"), 'unknown:part');
ALTER TABLE "PublishedPartMedia" ALTER COLUMN "destination" SET NOT NULL,
ADD CONSTRAINT "PublishedPartMedia_pkey" PRIMARY KEY ("artifactId", "destination", "position");

DROP TABLE "_PipelineAccount";

-- CreateIndex
CREATE INDEX "ArtifactDestination_workspaceId_destination_idx" ON "ArtifactDestination"("workspaceId", "destination");
