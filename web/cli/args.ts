// The CLI's argument parsing and output helpers, shared by its commands.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { ActionError, FixValidationError } from '../dispatch/service.ts';
import { ApiError } from '../admin/errors.ts';
import { ENVIRONMENTS, type EnvironmentName } from '../settings/schema.ts';
import type { CliRuntime } from './runtime.ts';
import { CliError } from './errors.ts';

export interface Command {
  summary: string;
  usage: string;
  run(rt: CliRuntime, args: string[]): Promise<void>;
}

const SHOP = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

export function shopArg(value: string | undefined): string {
  if (!value) throw new CliError('missing <shop> (e.g. my-store.myshopify.com)');
  const shop = value.trim().toLowerCase();
  if (!SHOP.test(shop)) throw new CliError(`'${value}' is not a shop domain like my-store.myshopify.com`);
  return shop;
}

export function parse(args: string[], options: ParseArgsOptionsConfig, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { json: { type: 'boolean' }, ...options }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError((e as Error).message.split('\n')[0]!.replace(/^.*?: /, ''));
  }
  if (parsed.positionals.length > positionals) throw new CliError(`unexpected argument '${parsed.positionals[positionals]}'`);
  return parsed as { values: Record<string, any>; positionals: string[] };
}

export function onOff(name: string, v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['on', 'true', 'yes'].includes(v)) return true;
  if (['off', 'false', 'no'].includes(v)) return false;
  throw new CliError(`--${name} expects on or off, got '${v}'`);
}

export function envArg(name: string, v: string | undefined): EnvironmentName | undefined {
  if (v === undefined) return undefined;
  if (!(ENVIRONMENTS as readonly string[]).includes(v)) throw new CliError(`--${name} expects test or live, got '${v}'`);
  return v as EnvironmentName;
}

export const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (c ?? '').padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

export const when = (d: Date | null | undefined) => (d ? d.toISOString().replace('T', ' ').slice(0, 19) : '-');

/** Option names of the fix command, by correction field. */
const FIX_FLAG: Record<string, string> = { latitude: 'lat', longitude: 'lng' };

/** A service's refusal (the admin API answers the same with 4xx) as a one-line CLI error. */
export async function asCliError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof FixValidationError) throw new CliError(Object.entries(e.errors).map(([k, v]) => `--${FIX_FLAG[k] ?? k}: ${v}`).join('; '));
    if (e instanceof ActionError || e instanceof ApiError) throw new CliError(e.message);
    throw e;
  }
}
