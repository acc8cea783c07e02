-- Issue 32: the approval gate. Workspaces that exist keep it off (nothing changes for them), and a
-- workspace created from now on is created with it on. An artifact records who approved its text.
ALTER TABLE "Workspace" ADD COLUMN "approvalRequired" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Artifact" ADD COLUMN "approvedAt" DATETIME;
ALTER TABLE "Artifact" ADD COLUMN "approvedBy" TEXT;
