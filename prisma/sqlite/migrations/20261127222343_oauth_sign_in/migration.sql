-- CreateTable
CREATE TABLE "OAuthAuthorization" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "OAuthClient" (
    "instance" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecret" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("instance", "redirectUri")
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Account" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "credentials" TEXT NOT NULL,
    "proxyUrl" TEXT,
    "status" TEXT NOT NULL,
    "lastProbedAt" DATETIME NOT NULL,
    "lastProbeError" TEXT,
    "connectedBy" TEXT NOT NULL DEFAULT 'credential',
    "grantVersion" INTEGER NOT NULL DEFAULT 0,
    "refreshLeaseUntil" DATETIME,
    "reconnectBy" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Account" ("createdAt", "credentials", "handle", "id", "lastProbeError", "lastProbedAt", "platform", "proxyUrl", "status", "updatedAt", "workspaceId") SELECT "createdAt", "credentials", "handle", "id", "lastProbeError", "lastProbedAt", "platform", "proxyUrl", "status", "updatedAt", "workspaceId" FROM "Account";
DROP TABLE "Account";
ALTER TABLE "new_Account" RENAME TO "Account";
CREATE UNIQUE INDEX "Account_workspaceId_platform_handle_key" ON "Account"("workspaceId", "platform", "handle");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "OAuthAuthorization_stateHash_key" ON "OAuthAuthorization"("stateHash");

-- CreateIndex
CREATE INDEX "OAuthAuthorization_workspaceId_createdAt_idx" ON "OAuthAuthorization"("workspaceId", "createdAt");

