// One model's row by id, and a conditional update of it, as raw SQL through the app's Prisma client
// (issue 24: the delivery's transition compiled a findUnique and an updateMany for every courier
// event and booking step, 1.5–2 ms of CPU). The columns come from Prisma's own schema (Prisma.dmmf),
// so a row reads as Prisma's findUnique returns it: the drivers type each column by its declaration.
//
// Protected personal data (protected-data.ts) is sealed and opened by a query extension that raw SQL
// bypasses: without the SecretBox these helpers never read those fields and refuse to write them;
// given the box, they seal and open them as the extension does (a protected field is matched only with null).
import { randomUUID } from 'node:crypto';
import { Prisma } from '@prisma/client';
import type { Tx } from './client.ts';
import { openFields, PROTECTED_FIELDS, sealValue } from './protected-data.ts';
import type { SecretBox } from '../security/crypto.ts';
import { dbTime, forProvider, TS, type Provider } from './raw-sql.ts';

type ModelName = 'Delivery';
type Protected = (typeof PROTECTED_FIELDS)['delivery'][number];
/** A Delivery as findUnique returns it, without the protected fields. */
export type OpenDeliveryRow = Omit<Prisma.DeliveryGetPayload<object>, Protected>;
/** A Delivery as findUnique returns it through the extended client (protected fields opened). */
export type DeliveryRow = Prisma.DeliveryGetPayload<object>;

/** The provider of a client or transaction client (Prisma's own record of it, which its raw queries use too). */
export function providerOf(tx: Tx): Provider {
  const p = (tx as { _activeProvider?: unknown })._activeProvider;
  if (p === 'sqlite') return 'sqlite';
  if (p === 'postgresql') return 'postgres';
  throw new Error(`cannot tell the database provider of this client (${String(p)})`);
}

interface Column {
  type: string;
  isUpdatedAt: boolean;
}

const PROTECTED: Record<ModelName, ReadonlySet<string>> = { Delivery: new Set(PROTECTED_FIELDS.delivery) };
/** The schema's @updatedAt fields, which Prisma sets on every update (its runtime schema does not say which). */
export const UPDATED_AT: Record<ModelName, readonly string[]> = { Delivery: ['updatedAt'] };
/** The schema's DateTime fields that default to now(), which a raw insert sets (nor does the runtime schema say which). */
export const DEFAULT_NOW: Record<ModelName, readonly string[]> = { Delivery: ['createdAt'] };
const columnsCache = new Map<string, Map<string, Column>>();

/** The model's scalar columns: protected ones left out, or with them when they are `sealed` (and opened) here. */
export function columnsOf(model: ModelName, sealed = false): Map<string, Column> {
  const key = `${model}:${sealed}`;
  let cols = columnsCache.get(key);
  if (!cols) {
    const m = Prisma.dmmf.datamodel.models.find((x) => x.name === model);
    if (!m) throw new Error(`no model ${model} in the Prisma schema`);
    cols = new Map(m.fields.filter((f) => f.kind === 'scalar' && (sealed || !PROTECTED[model].has(f.name))).map((f) => [f.name, { type: f.type, isUpdatedAt: UPDATED_AT[model].includes(f.name) }]));
    columnsCache.set(key, cols);
  }
  return cols;
}

const selectCache = new Map<string, string>();

/** The row with this id, or null: its open columns, or with the SecretBox every column (protected ones opened). */
export async function readRow(tx: Tx, model: 'Delivery', id: string): Promise<OpenDeliveryRow | null>;
export async function readRow(tx: Tx, model: 'Delivery', id: string, box: SecretBox): Promise<DeliveryRow | null>;
export async function readRow(tx: Tx, model: 'Delivery', id: string, box?: SecretBox): Promise<OpenDeliveryRow | DeliveryRow | null> {
  const provider = providerOf(tx);
  const key = `${provider}:${model}:${!!box}`;
  let text = selectCache.get(key);
  if (!text) {
    text = forProvider(provider, `SELECT ${[...columnsOf(model, !!box).keys()].map((c) => `"${c}"`).join(', ')} FROM "${model}" WHERE "id" = $1`);
    selectCache.set(key, text);
  }
  const rows = await tx.$queryRawUnsafe<DeliveryRow[]>(text, id);
  const row = rows[0] ?? null;
  return box && row ? openFields(box, PROTECTED_FIELDS.delivery, row) : row;
}

/** The open columns of `model` under `alias`, each named `<prefix><column>`, for a read that joins the row. */
export function joinedColumns(model: ModelName, alias: string, prefix: string): string {
  return [...columnsOf(model).keys()].map((c) => `${alias}."${c}" AS "${prefix}${c}"`).join(', ');
}

/** The joined row of joinedColumns out of a result row, or null when the join found none. */
export function joinedRow(r: Record<string, unknown>, model: 'Delivery', prefix: string): OpenDeliveryRow | null {
  if (r[`${prefix}id`] === null || r[`${prefix}id`] === undefined) return null;
  return Object.fromEntries([...columnsOf(model).keys()].map((c) => [c, r[`${prefix}${c}`]])) as OpenDeliveryRow;
}

export type RawWhere = Record<string, unknown>;
export type RawData = Record<string, unknown>;

const COMPARISONS = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** data with its protected fields sealed, as Prisma's extension seals them on write. */
const sealData = (model: ModelName, data: RawData, box: SecretBox): RawData =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, PROTECTED[model].has(k) ? sealValue(box, v) : v]));

/**
 * The statement for `INSERT INTO model (data)` (Prisma's create), in `provider`'s dialect. With `sealed`, data
 * may hold protected fields (their values already sealed). The id and each DateTime the schema defaults
 * to now() are given here when data has none (SQLite's CURRENT_TIMESTAMP is not the text Prisma stores);
 * @updatedAt is `now`. Other defaults are the database's. Pure: table-tested.
 */
export function insertStatement(provider: Provider, model: ModelName, data: RawData, now: number, id: string, sealed = false): { text: string; values: unknown[] } {
  const cols = columnsOf(model, sealed);
  const row: RawData = { id, ...data };
  for (const f of [...DEFAULT_NOW[model], ...UPDATED_AT[model]]) if (row[f] === undefined) row[f] = new Date(now);
  const names: string[] = [];
  const values: unknown[] = [];
  const binds: string[] = [];
  for (const [k, v] of Object.entries(row)) {
    if (v === undefined) continue;
    const c = cols.get(k);
    if (!c) throw new Error(`${model}.${k} is not a column raw SQL may name`);
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) throw new Error(`${model}.${k}: only a value can be inserted`);
    names.push(`"${k}"`);
    values.push(v instanceof Date ? dbTime(provider, v.getTime()) : v);
    binds.push(`$${values.length}${c.type === 'DateTime' ? TS : ''}`);
  }
  return { text: forProvider(provider, `INSERT INTO "${model}" (${names.join(', ')}) VALUES (${binds.join(', ')})`), values };
}

/**
 * Prisma's create as one raw insert, its protected fields sealed with the box: the new row's id. A unique
 * violation throws as Prisma's raw queries do (isUniqueViolation tells it).
 */
export async function insertRow(tx: Tx, model: ModelName, data: RawData, box: SecretBox): Promise<string> {
  const id = randomUUID();
  const { text, values } = insertStatement(providerOf(tx), model, sealData(model, data, box), Date.now(), id, true);
  await tx.$executeRawUnsafe(text, ...values);
  return id;
}

/** Whether updateRows can take this where and data: no protected field named (their values are sealed). */
export function writableRaw(model: ModelName, where: RawWhere, data: RawData): boolean {
  const named = (w: RawWhere): string[] => Object.entries(w).flatMap(([k, v]) => (k === 'OR' && Array.isArray(v) ? v.flatMap(named) : [k]));
  return ![...named(where), ...Object.keys(data)].some((k) => PROTECTED[model].has(k));
}

/**
 * The statement for `UPDATE model SET data WHERE where` (Prisma's updateMany), in `provider`'s dialect.
 * where: equality (null is IS NULL), { lt | lte | gt | gte } or OR: [where…]; data: values or { increment }.
 * A field of the schema's @updatedAt is set to `now` unless data sets it. With `sealed`, data may write
 * protected fields (their values already sealed) and where may match them with null. Pure: table-tested.
 */
export function updateStatement(provider: Provider, model: ModelName, where: RawWhere, data: RawData, now: number, sealed = false): { text: string; values: unknown[] } {
  const cols = columnsOf(model, sealed);
  const values: unknown[] = [];
  const column = (name: string) => {
    const c = cols.get(name);
    if (!c) throw new Error(`${model}.${name} is not a column raw SQL may name`);
    return c;
  };
  const bind = (c: Column, v: unknown) => {
    values.push(v instanceof Date ? dbTime(provider, v.getTime()) : v);
    return `$${values.length}${c.type === 'DateTime' ? TS : ''}`;
  };
  const sets: string[] = [];
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined) continue;
    const c = column(k);
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      const keys = Object.keys(v);
      if (keys.length !== 1 || keys[0] !== 'increment') throw new Error(`${model}.${k}: only a value or { increment } can be written`);
      sets.push(`"${k}" = "${k}" + ${bind(c, (v as { increment: number }).increment)}`);
    } else sets.push(`"${k}" = ${bind(c, v)}`);
  }
  for (const [k, c] of cols) if (c.isUpdatedAt && data[k] === undefined) sets.push(`"${k}" = ${bind(c, new Date(now))}`);
  if (!sets.length) throw new Error(`nothing to write to ${model}`);
  // PostgreSQL, by id: the other conditions only check the one row, in a form no index answers: its
  // statistics lag a sale (a status rare when last analyzed is common minutes later), and it updated
  // deliveries through the status index, past every other row in that status (bench:events). SQLite
  // always takes a unique index for an equality.
  const byId = provider === 'postgres' && typeof where.id === 'string';
  const conditions = (w: RawWhere, top = false): string[] => {
    const conds: string[] = [];
    const push = (k: string, sql: string) => conds.push(top && byId && k !== 'id' ? `(${sql}) IS TRUE` : sql);
    for (const [k, v] of Object.entries(w)) {
      if (v === undefined) continue;
      if (k === 'OR') {
        if (!Array.isArray(v) || !v.length) throw new Error(`${model}: OR takes a list of conditions`);
        push(k, `(${v.map((x: RawWhere) => conditions(x).join(' AND ') || 'TRUE').join(' OR ')})`);
        continue;
      }
      const c = column(k);
      // A sealed value never equals a fresh seal of the same text: only null can be matched.
      if (v !== null && PROTECTED[model].has(k)) throw new Error(`${model}.${k}: a protected field can only be matched with null`);
      if (v === null) push(k, `"${k}" IS NULL`);
      else if (typeof v === 'object' && !(v instanceof Date)) {
        for (const [op, x] of Object.entries(v as Record<string, unknown>)) {
          const sqlOp = COMPARISONS[op as keyof typeof COMPARISONS];
          if (!sqlOp || x === null || x === undefined) throw new Error(`${model}.${k}: only equality, lt, lte, gt and gte with a value can be matched`);
          push(k, `"${k}" ${sqlOp} ${bind(c, x)}`);
        }
      } else push(k, `"${k}" = ${bind(c, v)}`);
    }
    return conds;
  };
  const conds = conditions(where, true);
  if (!conds.length) throw new Error(`an update of ${model} needs a condition`);
  return { text: forProvider(provider, `UPDATE "${model}" SET ${sets.join(', ')} WHERE ${conds.join(' AND ')}`), values };
}

/**
 * Prisma's updateMany as one raw statement: the number of rows changed. Protected fields only with the
 * SecretBox, which seals what is written as the extension would.
 */
export async function updateRows(tx: Tx, model: ModelName, where: RawWhere, data: RawData, box?: SecretBox): Promise<number> {
  if (!box && !writableRaw(model, where, data)) throw new Error(`${model}: protected fields are written through Prisma, which seals them, or with the SecretBox`);
  const written = box ? sealData(model, data, box) : data;
  const { text, values } = updateStatement(providerOf(tx), model, where, written, Date.now(), !!box);
  return tx.$executeRawUnsafe(text, ...values);
}
