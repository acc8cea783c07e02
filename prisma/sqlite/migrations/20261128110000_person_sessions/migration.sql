-- Issue 32: a person's review desk session is a token of its own kind (cps_, every scope, a sliding
-- expiry). Tokens that exist already are agents' tokens.
ALTER TABLE "AgentToken" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'agent';
