// Workspaces and their agent tokens (stored as SHA-256 hex digests).
import type { Db } from './database.js';

export async function countWorkspaces(db: Db): Promise<number> {
  return db.workspace.count();
}

export async function firstWorkspace(db: Db) {
  return db.workspace.findFirst({ orderBy: { createdAt: 'asc' } });
}

export async function createWorkspaceWithToken(db: Db, w: { id: string; name: string; tokenId: string; tokenHash: string }) {
  return db.workspace.create({
    data: { id: w.id, name: w.name, tokens: { create: { id: w.tokenId, tokenHash: w.tokenHash } } },
  });
}

export async function addToken(db: Db, t: { id: string; workspaceId: string; tokenHash: string }) {
  return db.agentToken.create({ data: t });
}

export async function findToken(db: Db, tokenHash: string) {
  return db.agentToken.findUnique({ where: { tokenHash } });
}
