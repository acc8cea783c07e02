-- Destinations apart from sources (issue 23). A pipeline gets default destinations (null: its own
-- account, as before), an artifact gets one ArtifactDestination row per destination, and its
-- published parts and their images are keyed by destination. Existing data is carried over: the
-- parts and publish state of every artifact handed to a publish run become the destination rows
-- of its pipeline's own account (the only account that could have posted them).

-- AlterTable
ALTER TABLE "Pipeline" ADD COLUMN "destinations" TEXT;

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
    "nextAttemptAt" DATETIME,
    "publishedAt" DATETIME,
    "url" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("artifactId", "destination")
);

-- The account of each pipeline that posts (its handle as connected: the adapters normalize it,
-- so the comparison ignores case and a leading @).
CREATE TEMP TABLE "_PipelineAccount" AS
SELECT p."id" AS "pipelineId", p."platform" AS "platform", p."handle" AS "handle",
  COALESCE((SELECT acc."id" FROM "Account" acc
     WHERE acc."workspaceId" = p."workspaceId" AND acc."platform" = p."platform"
       AND (lower(acc."handle") = lower(p."handle") OR lower(acc."handle") = '@' || lower(p."handle") OR '@' || lower(acc."handle") = lower(p."handle"))
     ORDER BY acc."id" LIMIT 1), 'unknown:' || p."platform") AS "destination",
  (SELECT acc."id" FROM "Account" acc
     WHERE acc."workspaceId" = p."workspaceId" AND acc."platform" = p."platform"
       AND (lower(acc."handle") = lower(p."handle") OR lower(acc."handle") = '@' || lower(p."handle") OR '@' || lower(acc."handle") = lower(p."handle"))
     ORDER BY acc."id" LIMIT 1) AS "accountId"
FROM "Pipeline" p
WHERE p."platform" IN ('mastodon', 'bluesky');

INSERT INTO "ArtifactDestination" ("artifactId", "destination", "workspaceId", "accountId", "platform", "handle", "position", "state", "runId", "errorCode", "errorMessage", "publishedAt", "url", "createdAt", "updatedAt")
SELECT a."id", pa."destination", a."workspaceId", pa."accountId", pa."platform", pa."handle", 0,
  CASE a."state" WHEN 'published' THEN 'live' WHEN 'publish_failed' THEN 'failed' WHEN 'scheduled' THEN 'scheduled' WHEN 'publishing' THEN 'publishing' ELSE 'pending' END,
  a."publishRunId", a."publishErrorCode", a."publishErrorMessage", a."publishedAt", a."publishedUrl", a."updatedAt", a."updatedAt"
FROM "Artifact" a JOIN "_PipelineAccount" pa ON pa."pipelineId" = a."pipelineId"
WHERE a."publishRunId" IS NOT NULL;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PublishedPart" (
    "artifactId" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "externalId" TEXT NOT NULL,
    "cid" TEXT,
    "url" TEXT,
    "postedAt" DATETIME NOT NULL,

    PRIMARY KEY ("artifactId", "destination", "position")
);
INSERT INTO "new_PublishedPart" ("artifactId", "destination", "cid", "externalId", "position", "postedAt", "url")
SELECT pp."artifactId", COALESCE(pa."destination", 'unknown:part'), pp."cid", pp."externalId", pp."position", pp."postedAt", pp."url"
FROM "PublishedPart" pp LEFT JOIN "Artifact" a ON a."id" = pp."artifactId" LEFT JOIN "_PipelineAccount" pa ON pa."pipelineId" = a."pipelineId";
DROP TABLE "PublishedPart";
ALTER TABLE "new_PublishedPart" RENAME TO "PublishedPart";
CREATE TABLE "new_PublishedPartMedia" (
    "artifactId" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "uploaded" TEXT NOT NULL,
    "uploadedAt" DATETIME NOT NULL,

    PRIMARY KEY ("artifactId", "destination", "position")
);
INSERT INTO "new_PublishedPartMedia" ("artifactId", "destination", "position", "uploaded", "uploadedAt")
SELECT pm."artifactId", COALESCE(pa."destination", 'unknown:part'), pm."position", pm."uploaded", pm."uploadedAt"
FROM "PublishedPartMedia" pm LEFT JOIN "Artifact" a ON a."id" = pm."artifactId" LEFT JOIN "_PipelineAccount" pa ON pa."pipelineId" = a."pipelineId";
DROP TABLE "PublishedPartMedia";
ALTER TABLE "new_PublishedPartMedia" RENAME TO "PublishedPartMedia";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
DROP TABLE "_PipelineAccount";

-- CreateIndex
CREATE INDEX "ArtifactDestination_workspaceId_destination_idx" ON "ArtifactDestination"("workspaceId", "destination");
