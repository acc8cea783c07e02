-- Issue 32: named tokens with scopes, an optional expiry, last use and revocation. Tokens that
-- exist already keep every scope.
ALTER TABLE "AgentToken" ADD COLUMN "name" TEXT;
ALTER TABLE "AgentToken" ADD COLUMN "scopes" TEXT NOT NULL DEFAULT 'read draft approve publish accounts admin';
ALTER TABLE "AgentToken" ADD COLUMN "expiresAt" DATETIME;
ALTER TABLE "AgentToken" ADD COLUMN "lastUsedAt" DATETIME;
ALTER TABLE "AgentToken" ADD COLUMN "revokedAt" DATETIME;
