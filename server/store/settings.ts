// Instance-wide settings shared by every server on the same database.
import type { Db } from './database.js';

/** Returns the stored value, storing `candidate` first when there is none (first writer wins). */
export async function getOrCreateSetting(db: Db, key: string, candidate: string): Promise<string> {
  await db
    .insertInto('Setting')
    .values({ key, value: candidate })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('Setting').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}

/** Stores `value` under `key` (a new key: a clash is an error, never an overwrite). */
export async function insertSetting(db: Db, key: string, value: string): Promise<void> {
  await db.insertInto('Setting').values({ key, value }).execute();
}

/** Removes the setting and answers its value, or null when there was none: one statement, so that two takers never both get it. */
export async function takeSetting(db: Db, key: string): Promise<string | null> {
  const row = await db.deleteFrom('Setting').where('key', '=', key).returning('value').executeTakeFirst();
  return row?.value ?? null;
}

/** The settings whose key starts with `prefix` (a literal: no LIKE wildcard in it). */
export async function settingsWithPrefix(db: Db, prefix: string): Promise<Array<{ key: string; value: string }>> {
  return db.selectFrom('Setting').select(['key', 'value']).where('key', '>=', prefix).where('key', '<', `${prefix}\uffff`).execute();
}

export async function deleteSetting(db: Db, key: string): Promise<void> {
  await db.deleteFrom('Setting').where('key', '=', key).execute();
}
