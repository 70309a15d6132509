// Chooses the job-queue backend by database provider. See queue.ts for the
// interface and its guarantees.
import type { Database } from '../db/client.ts';
import type { Logger } from '../ops/logger.ts';
import type { IntakeFirst } from './intake-first.ts';
import type { PgBossQueueOptions } from './pgboss.ts';
import type { JobQueue, JobRetryPolicy } from './queue.ts';
import { SqliteJobQueue } from './sqlite.ts';

export type { EnqueueOptions, Job, JobInfo, JobQueue, JobRetryPolicy, JobState, WorkOptions } from './queue.ts';
export { PermanentJobError } from './queue.ts';
export { DEFAULT_JOB_RETRY } from '../retry/policy.ts';

export interface JobQueueOptions {
  log: Logger;
  /** Identifies this process in claims and pg-boss's instance registry. */
  instanceId?: string;
  /** Idle poll interval (SQLite default 250 ms; pg-boss default 1000 ms, floor 500 ms). */
  pollIntervalMs?: number;
  /** SQLite claim lease, renewed while a handler runs (default 60 s). */
  leaseMs?: number;
  /** Queue-wide retry defaults; work(name, …, { retry }) overrides per name. */
  defaults?: Partial<JobRetryPolicy>;
  /** Jobs wait while webhooks need the event loop (intake-first.ts). */
  intakeFirst?: Pick<IntakeFirst, 'turn'>;
  /** PostgreSQL only: pg-boss settings (schema, expireInSeconds, heartbeatSeconds, …). */
  pgboss?: Omit<PgBossQueueOptions, 'log' | 'defaults' | 'instanceId' | 'pollIntervalMs'>;
}

export async function createJobQueue(database: Database, opts: JobQueueOptions): Promise<JobQueue> {
  const log = opts.log.child({ component: 'jobs' });
  const common = {
    log,
    ...(opts.instanceId !== undefined ? { instanceId: opts.instanceId } : {}),
    ...(opts.pollIntervalMs !== undefined ? { pollIntervalMs: opts.pollIntervalMs } : {}),
    ...(opts.defaults !== undefined ? { defaults: opts.defaults } : {}),
    ...(opts.intakeFirst !== undefined ? { intakeFirst: opts.intakeFirst } : {}),
  };
  if (database.provider === 'sqlite') {
    return new SqliteJobQueue(database, { ...common, ...(opts.leaseMs !== undefined ? { leaseMs: opts.leaseMs } : {}) });
  }
  // pg-boss (and pg) load only on PostgreSQL: about 15 MB less resident on SQLite.
  const { PgBossJobQueue } = await import('./pgboss.ts');
  return new PgBossJobQueue(database, { ...opts.pgboss, ...common });
}
