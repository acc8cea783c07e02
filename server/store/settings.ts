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
