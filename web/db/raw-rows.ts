// One model's row by id, and a conditional update of it, as raw SQL through the app's Prisma client
// (issue 24: the delivery's transition compiled a findUnique and an updateMany for every courier
// event and booking step, 1.5–2 ms of CPU). The columns come from Prisma's own schema (Prisma.dmmf),
// so a row reads as Prisma's findUnique returns it: the drivers type each column by its declaration.
//
// Protected personal data (protected-data.ts) is sealed and opened by a query extension that raw SQL
// bypasses: these helpers never read those fields and refuse to write them.
import { Prisma } from '@prisma/client';
import type { Tx } from './client.ts';
import { PROTECTED_FIELDS } from './protected-data.ts';
import { dbTime, forProvider, TS, type Provider } from './raw-sql.ts';

type ModelName = 'Delivery';
type Protected = (typeof PROTECTED_FIELDS)['delivery'][number];
/** A Delivery as findUnique returns it, without the protected fields. */
export type OpenDeliveryRow = Omit<Prisma.DeliveryGetPayload<object>, Protected>;

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
const columnsCache = new Map<ModelName, Map<string, Column>>();

/** The model's scalar columns, protected ones left out. */
export function columnsOf(model: ModelName): Map<string, Column> {
  let cols = columnsCache.get(model);
  if (!cols) {
    const m = Prisma.dmmf.datamodel.models.find((x) => x.name === model);
    if (!m) throw new Error(`no model ${model} in the Prisma schema`);
    cols = new Map(m.fields.filter((f) => f.kind === 'scalar' && !PROTECTED[model].has(f.name)).map((f) => [f.name, { type: f.type, isUpdatedAt: UPDATED_AT[model].includes(f.name) }]));
    columnsCache.set(model, cols);
  }
  return cols;
}

const selectCache = new Map<string, string>();

/** The row with this id (its open columns), or null. */
export async function readRow(tx: Tx, model: 'Delivery', id: string): Promise<OpenDeliveryRow | null> {
  const provider = providerOf(tx);
  const key = `${provider}:${model}`;
  let text = selectCache.get(key);
  if (!text) {
    text = forProvider(provider, `SELECT ${[...columnsOf(model).keys()].map((c) => `"${c}"`).join(', ')} FROM "${model}" WHERE "id" = $1`);
    selectCache.set(key, text);
  }
  const rows = await tx.$queryRawUnsafe<OpenDeliveryRow[]>(text, id);
  return rows[0] ?? null;
}

export type RawWhere = Record<string, unknown>;
export type RawData = Record<string, unknown>;

const COMPARISONS = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** Whether updateRows can take this where and data: no protected field named (their values are sealed). */
export function writableRaw(model: ModelName, where: RawWhere, data: RawData): boolean {
  const named = (w: RawWhere): string[] => Object.entries(w).flatMap(([k, v]) => (k === 'OR' && Array.isArray(v) ? v.flatMap(named) : [k]));
  return ![...named(where), ...Object.keys(data)].some((k) => PROTECTED[model].has(k));
}

/**
 * The statement for `UPDATE model SET data WHERE where` (Prisma's updateMany), in `provider`'s dialect.
 * where: equality (null is IS NULL), { lt | lte | gt | gte } or OR: [where…]; data: values or { increment }.
 * A field of the schema's @updatedAt is set to `now` unless data sets it. Pure: table-tested.
 */
export function updateStatement(provider: Provider, model: ModelName, where: RawWhere, data: RawData, now: number): { text: string; values: unknown[] } {
  const cols = columnsOf(model);
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
  const conditions = (w: RawWhere): string[] => {
    const conds: string[] = [];
    for (const [k, v] of Object.entries(w)) {
      if (v === undefined) continue;
      if (k === 'OR') {
        if (!Array.isArray(v) || !v.length) throw new Error(`${model}: OR takes a list of conditions`);
        conds.push(`(${v.map((x: RawWhere) => conditions(x).join(' AND ') || 'TRUE').join(' OR ')})`);
        continue;
      }
      const c = column(k);
      if (v === null) conds.push(`"${k}" IS NULL`);
      else if (typeof v === 'object' && !(v instanceof Date)) {
        for (const [op, x] of Object.entries(v as Record<string, unknown>)) {
          const sqlOp = COMPARISONS[op as keyof typeof COMPARISONS];
          if (!sqlOp || x === null || x === undefined) throw new Error(`${model}.${k}: only equality, lt, lte, gt and gte with a value can be matched`);
          conds.push(`"${k}" ${sqlOp} ${bind(c, x)}`);
        }
      } else conds.push(`"${k}" = ${bind(c, v)}`);
    }
    return conds;
  };
  const conds = conditions(where);
  if (!conds.length) throw new Error(`an update of ${model} needs a condition`);
  return { text: forProvider(provider, `UPDATE "${model}" SET ${sets.join(', ')} WHERE ${conds.join(' AND ')}`), values };
}

/** Prisma's updateMany as one raw statement: the number of rows changed. */
export async function updateRows(tx: Tx, model: ModelName, where: RawWhere, data: RawData): Promise<number> {
  if (!writableRaw(model, where, data)) throw new Error(`${model}: protected fields are written through Prisma, which seals them`);
  const { text, values } = updateStatement(providerOf(tx), model, where, data, Date.now());
  return tx.$executeRawUnsafe(text, ...values);
}
