// Instance-wide settings shared by every server on the same database.
import type { Db } from './database.js';

/** Returns the stored value, storing `candidate` first when there is none (first writer wins). */
export async function getOrCreateSetting(db: Db, key: string, candidate: string): Promise<string> {
  const existing = await db.setting.findUnique({ where: { key } });
  if (existing) return existing.value;
  try {
    await db.setting.create({ data: { key, value: candidate } });
  } catch {
    // another instance created it first
  }
  const row = await db.setting.findUniqueOrThrow({ where: { key } });
  return row.value;
}
