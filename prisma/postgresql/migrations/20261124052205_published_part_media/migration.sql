-- CreateTable
CREATE TABLE "PublishedPartMedia" (
    "artifactId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "uploaded" TEXT NOT NULL,
    "uploadedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PublishedPartMedia_pkey" PRIMARY KEY ("artifactId","position")
);
