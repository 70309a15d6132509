// What the admin remembers about set-up checks (the last connection test and
// the last test webhook, per environment), so onboarding shows real state.
//
// Stored per courier environment (CourierEnvironment.connectionCheck /
// webhookCheck). Each record holds a fingerprint of the credentials it was
// made with, so a check only counts while those credentials are still current.
import { createHash } from 'node:crypto';
import type { Tx } from '../db/client.ts';
import { readCheck, writeCheck } from '../db/json-columns.ts';
import type { EnvironmentName } from '../settings/schema.ts';
import type { CourierAccess } from '../delivery/types.ts';

export interface CheckRecord {
  ok: boolean;
  at: string;
  message: string;
  /** Fingerprint of the credentials checked (never the credentials). */
  fingerprint: string;
}

export interface AdminState {
  connection: Partial<Record<EnvironmentName, CheckRecord>>;
  webhookTest: Partial<Record<EnvironmentName, CheckRecord & { sent: boolean; received: boolean; verified: boolean }>>;
}

type EnvRow = { environment: string; connectionCheck: string | null; webhookCheck: string | null };

/** The check records of a shop's courier environment rows. */
export function readAdminState(rows: EnvRow[]): AdminState {
  const state: AdminState = { connection: {}, webhookTest: {} };
  for (const row of rows) {
    const env = row.environment as EnvironmentName;
    state.connection[env] = readCheck(row.connectionCheck);
    state.webhookTest[env] = readCheck(row.webhookCheck);
  }
  return state;
}

const digest = (...parts: Array<string | null | undefined>) => createHash('sha256').update(parts.map((p) => p ?? '').join('\n')).digest('hex').slice(0, 20);

/** Identifies the credentials a token request uses. */
export function connectionFingerprint(access: Pick<CourierAccess, 'baseUrl' | 'clientId' | 'clientSecret'>): string {
  return digest('connection', access.baseUrl, access.clientId, access.clientSecret);
}

/** Identifies the webhook set-up a test webhook proves: the endpoint and the current signing secret. */
export function webhookFingerprint(access: Pick<CourierAccess, 'endpointId' | 'webhookSecrets' | 'baseUrl' | 'clientId'>): string {
  return digest('webhook', access.endpointId, access.webhookSecrets[0] ?? null, access.baseUrl, access.clientId);
}

/** One row, one column: concurrent checks of the two environments never overwrite each other. */
export async function recordCheck<K extends keyof AdminState>(
  tx: Tx,
  environmentId: string,
  kind: K,
  record: NonNullable<AdminState[K][EnvironmentName]>,
): Promise<void> {
  const column = kind === 'connection' ? 'connectionCheck' : 'webhookCheck';
  await tx.courierEnvironment.update({ where: { id: environmentId }, data: { [column]: writeCheck(record) } });
}
