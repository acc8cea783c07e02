-- CreateTable
CREATE TABLE "ArtifactVariant" (
    "workspaceId" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "parts" TEXT NOT NULL,
    "numbered" BOOLEAN NOT NULL DEFAULT false,
    "origin" TEXT NOT NULL,
    "problem" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("artifactId", "platform")
);

-- CreateIndex
CREATE INDEX "ArtifactVariant_workspaceId_idx" ON "ArtifactVariant"("workspaceId");

