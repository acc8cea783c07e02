-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "connectedBy" TEXT NOT NULL DEFAULT 'credential',
ADD COLUMN     "grantVersion" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "reconnectBy" TIMESTAMP(3),
ADD COLUMN     "refreshLeaseUntil" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "OAuthAuthorization" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "tokenId" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "instance" TEXT,
    "expectedHandle" TEXT,
    "stateHash" TEXT NOT NULL,
    "verifier" TEXT NOT NULL,
    "authorizationUrl" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "accountId" TEXT,
    "failure" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "OAuthAuthorization_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OAuthClient" (
    "instance" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecret" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "OAuthClient_pkey" PRIMARY KEY ("instance","redirectUri")
);

-- CreateIndex
CREATE UNIQUE INDEX "OAuthAuthorization_stateHash_key" ON "OAuthAuthorization"("stateHash");

-- CreateIndex
CREATE INDEX "OAuthAuthorization_workspaceId_createdAt_idx" ON "OAuthAuthorization"("workspaceId", "createdAt");

