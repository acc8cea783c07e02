-- AlterTable
ALTER TABLE "SourcePost" ADD COLUMN "contentWarning" TEXT;
ALTER TABLE "SourcePost" ADD COLUMN "firstVersionUrl" TEXT;
ALTER TABLE "SourcePost" ADD COLUMN "poll" TEXT;
ALTER TABLE "SourcePost" ADD COLUMN "unreadDate" TEXT;

-- AlterTable
ALTER TABLE "Artifact" ADD COLUMN "contentWarning" TEXT;

