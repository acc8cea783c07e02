-- CreateTable
CREATE TABLE "PublishedPartMedia" (
    "artifactId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "uploaded" TEXT NOT NULL,
    "uploadedAt" DATETIME NOT NULL,

    PRIMARY KEY ("artifactId", "position")
);

