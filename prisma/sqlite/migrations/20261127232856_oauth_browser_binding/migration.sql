-- AlterTable
ALTER TABLE "OAuthAuthorization" ADD COLUMN "browserBinding" TEXT;

