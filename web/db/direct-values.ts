// Values in and out of a raw statement run without Prisma (web/db/direct-raw.ts), converted as
// Prisma 6.19 with its driver adapters converts them. SQLite (@prisma/adapter-better-sqlite3):
// arguments as its mapArg, results by the column's declared type (its mapDeclType), else by the
// first non-null value. PostgreSQL (@prisma/adapter-pg): arguments as its mapArg, results by the
// field's type id (its fieldToColumnType and custom parsers). Pure. Anything else is refused
// (undefined / UNKNOWN) and left to Prisma's path.
import pg from 'pg';

export interface Column {
  name: string;
  type: string | null;
}

/** How a driver binds each kind of argument (null, text, finite numbers pass as they are). */
interface ArgForms {
  boolean(v: boolean): unknown;
  bigint(v: bigint): unknown;
  /** Undefined for a time the database cannot store. */
  date(v: Date): unknown;
}

function mapArgs(values: readonly unknown[], forms: ArgForms): unknown[] | undefined {
  const out: unknown[] = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    let mapped: unknown;
    if (v === null || typeof v === 'string') mapped = v;
    else if (typeof v === 'number') mapped = Number.isFinite(v) ? v : undefined;
    else if (typeof v === 'boolean') mapped = forms.boolean(v);
    else if (typeof v === 'bigint') mapped = forms.bigint(v);
    else if (v instanceof Date) mapped = Number.isNaN(v.getTime()) ? undefined : forms.date(v);
    else if (v instanceof Uint8Array) mapped = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    if (mapped === undefined) return undefined;
    out[i] = mapped;
  }
  return out;
}

/** The arguments as the SQLite adapter binds them, or undefined when one is of a kind left to Prisma. */
export function sqliteArgs(values: readonly unknown[]): unknown[] | undefined {
  return mapArgs(values, { boolean: (v) => (v ? 1 : 0), bigint: (v) => v, date: (v) => v.toISOString().replace('Z', '+00:00') });
}

/** Thrown inside a conversion: the statement's result goes through Prisma's path instead. */
const UNKNOWN = Symbol('left to Prisma');
type Read = (v: unknown) => unknown;

const refuse = (): never => {
  throw UNKNOWN;
};
// An integer in a floating-point column comes back from Prisma as text: left to Prisma.
const asNumber: Read = (v) => (typeof v === 'number' ? v : refuse());
const asInt: Read = (v) => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? Math.trunc(v) : refuse());
const asBigInt: Read = (v) => (typeof v === 'bigint' ? v : typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : refuse());
const asText: Read = (v) => (typeof v === 'string' ? v : refuse());
const asBytes: Read = (v) => (v instanceof Uint8Array ? new Uint8Array(v) : refuse());
const asBoolean: Read = (v) => (typeof v === 'bigint' || typeof v === 'number' ? Number(v) !== 0 : refuse());
// Stored by Prisma (and dbTime) as ISO text with its offset, or as epoch milliseconds.
const ISO_WITH_ZONE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const asDate: Read = (v) =>
  typeof v === 'bigint' || typeof v === 'number' ? new Date(Number(v)) : typeof v === 'string' && ISO_WITH_ZONE.test(v) ? new Date(v) : refuse();

/** The adapter's mapDeclType, as a conversion; 'infer' where it infers from the values; undefined where Prisma's own types (Decimal, Json, Date, Time) are needed. */
export function readerFor(declared: string | null): Read | 'infer' | undefined {
  switch ((declared ?? '').toUpperCase()) {
    case 'FLOAT':
    case 'DOUBLE':
    case 'DOUBLE PRECISION':
    case 'NUMERIC':
    case 'REAL':
      return asNumber;
    case 'TINYINT':
    case 'SMALLINT':
    case 'MEDIUMINT':
    case 'INT':
    case 'INTEGER':
    case 'SERIAL':
    case 'INT2':
      return asInt;
    case 'BIGINT':
    case 'UNSIGNED BIG INT':
    case 'INT8':
      return asBigInt;
    case 'DATETIME':
    case 'TIMESTAMP':
      return asDate;
    case 'TEXT':
    case 'CLOB':
    case 'CHARACTER':
    case 'VARCHAR':
    case 'VARYING CHARACTER':
    case 'NCHAR':
    case 'NATIVE CHARACTER':
    case 'NVARCHAR':
      return asText;
    case 'BLOB':
      return asBytes;
    case 'BOOLEAN':
      return asBoolean;
    case 'DECIMAL':
    case 'JSONB':
    case 'DATE':
    case 'TIME':
      return undefined;
    default:
      return 'infer';
  }
}

/** An undeclared column (an expression) by its first non-null value, as the adapter infers it. */
function inferred(rows: readonly unknown[][], i: number): Read {
  const first = rows.find((r) => r[i] !== null)?.[i];
  if (first === undefined) return asNumber; // all null
  if (typeof first === 'string') return asText;
  if (typeof first === 'bigint') return asBigInt;
  if (typeof first === 'number') return asNumber;
  return refuse();
}

/** Rows as objects keyed by column name, converted as Prisma does; undefined when one value is left to Prisma. */
export function sqliteRows(columns: readonly Column[], rows: readonly unknown[][]): Array<Record<string, unknown>> | undefined {
  try {
    const readers = columns.map((c, i) => {
      const r = readerFor(c.type);
      if (r === undefined) refuse();
      return r === 'infer' ? inferred(rows, i) : r!;
    });
    return rows.map((row) => {
      const o: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) o[columns[i]!.name] = row[i] === null ? null : readers[i]!(row[i]);
      return o;
    });
  } catch (e) {
    if (e === UNKNOWN) return undefined;
    throw e;
  }
}

/** A DateTime argument as the adapter sends it: UTC, no zone, milliseconds only when not zero. */
function pgDateTime(d: Date): string {
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, d.getUTCMilliseconds() ? 23 : 19)}`;
}

/** The arguments as the PostgreSQL adapter binds them, or undefined when one is of a kind left to Prisma. */
export function pgArgs(values: readonly unknown[]): unknown[] | undefined {
  return mapArgs(values, { boolean: (v) => v, bigint: String, date: (v) => (v.getUTCFullYear() >= 1 && v.getUTCFullYear() <= 9999 ? pgDateTime(v) : undefined) });
}

const parseBytea = pg.types.getTypeParser(17, 'text') as (s: string) => Buffer;
const pgDate = (s: string): Date => {
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? refuse() : d;
};
/** PostgreSQL's text form of a value, by type id, as Prisma gives it. */
const PG_READERS: Record<number, (s: string) => unknown> = {
  16: (s) => s === 't', // bool
  17: (s) => new Uint8Array(parseBytea(s)), // bytea
  20: (s) => BigInt(s), // int8
  21: Number, // int2
  23: Number, // int4
  25: (s) => s, // text
  700: Number.parseFloat, // float4
  701: Number.parseFloat, // float8
  1042: (s) => s, // bpchar
  1043: (s) => s, // varchar
  114: (s) => JSON.parse(s), // json
  2950: (s) => s, // uuid
  3802: (s) => JSON.parse(s), // jsonb
  // timestamp(3): UTC without a zone; timestamptz's offset is replaced as the adapter does.
  1114: (s) => pgDate(`${s.replace(' ', 'T')}+00:00`),
  1184: (s) => pgDate(s.replace(' ', 'T').replace(/[+-]\d{2}(:\d{2})?$/, '+00:00')),
};

/** PostgreSQL's FIRST_NORMAL_OBJECT_ID: type ids from here on are created by the database's users. */
const FIRST_USER_TYPE_ID = 16384;

/** Every value as PostgreSQL sent it (text): the reader above converts it. */
export const PG_TEXT_TYPES = { getTypeParser: () => (s: string) => s };

/** Rows (array mode, text values) as objects keyed by field name, converted as Prisma does; undefined when a type is left to Prisma. */
export function pgRows(fields: ReadonlyArray<{ name: string; dataTypeID: number }>, rows: readonly unknown[][]): Array<Record<string, unknown>> | undefined {
  try {
    // A type of the database's own (an enum, pg-boss's job_state) is text to the adapter.
    const readers = fields.map((f) => PG_READERS[f.dataTypeID] ?? (f.dataTypeID >= FIRST_USER_TYPE_ID ? String : refuse()));
    return rows.map((row) => {
      const o: Record<string, unknown> = {};
      for (let i = 0; i < fields.length; i++) o[fields[i]!.name] = row[i] === null ? null : readers[i]!(row[i] as string);
      return o;
    });
  } catch (e) {
    if (e === UNKNOWN) return undefined;
    throw e;
  }
}
