// Direct looks at (and pokes into) the database from tests, through the store's Kysely instance.
// `where` is column → value (an array means IN); rows come back as the store reads them (Dates).
import type { Kysely } from 'kysely';
import type { DB, Db, Row } from '../../server/store/database.js';

type Where = Record<string, unknown>;
// Tests name tables and columns dynamically: the builder is used untyped here only.
const loose = (db: Db) => db as unknown as Kysely<any>;

function filtered<Q extends { where(...args: any[]): Q }>(q: Q, where: Where): Q {
  for (const [k, v] of Object.entries(where)) q = Array.isArray(v) ? q.where(k, 'in', v) : v === null ? q.where(k, 'is', null) : q.where(k, '=', v);
  return q;
}

export async function countRows(db: Db, table: keyof DB, where: Where = {}): Promise<number> {
  const r = await filtered(
    loose(db)
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n')),
    where,
  ).executeTakeFirstOrThrow();
  return Number(r.n);
}

export function findRows<T extends keyof DB>(db: Db, table: T, where: Where = {}, orderBy?: string): Promise<Array<Row<T>>> {
  let q = filtered(loose(db).selectFrom(table).selectAll(), where);
  if (orderBy) q = q.orderBy(orderBy, 'asc');
  return q.execute() as Promise<Array<Row<T>>>;
}

export async function findRow<T extends keyof DB>(db: Db, table: T, where: Where): Promise<Row<T>> {
  const rows = await findRows(db, table, where);
  if (!rows[0]) throw new Error(`no ${table} row where ${JSON.stringify(where)}`);
  return rows[0];
}

export async function updateRows(db: Db, table: keyof DB, where: Where, set: Where): Promise<number> {
  const r = await filtered(loose(db).updateTable(table).set(set), where).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function deleteRows(db: Db, table: keyof DB, where: Where): Promise<number> {
  const r = await filtered(loose(db).deleteFrom(table), where).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function insertRow<T extends keyof DB>(db: Db, table: T, values: Where): Promise<Row<T>> {
  return (await loose(db).insertInto(table).values(values).returningAll().executeTakeFirstOrThrow()) as Row<T>;
}

/** Inserts many rows in multi-row statements of `chunk` rows (seeding thousands of rows in a few statements). */
export async function insertRows(db: Db, table: keyof DB, values: Where[], chunk = 250): Promise<void> {
  for (let i = 0; i < values.length; i += chunk)
    await loose(db)
      .insertInto(table)
      .values(values.slice(i, i + chunk))
      .execute();
}
