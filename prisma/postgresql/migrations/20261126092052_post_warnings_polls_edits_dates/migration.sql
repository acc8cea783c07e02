-- AlterTable
ALTER TABLE "SourcePost" ADD COLUMN     "contentWarning" TEXT,
ADD COLUMN     "firstVersionUrl" TEXT,
ADD COLUMN     "poll" TEXT,
ADD COLUMN     "unreadDate" TEXT;

-- AlterTable
ALTER TABLE "Artifact" ADD COLUMN     "contentWarning" TEXT;

