// /healthz: the process is alive. /readyz: migrations are applied, the
// encryption key reads the stored secrets (web/db/key-check.ts) and the
// database answers now; 503 otherwise, so a load balancer holds traffic back.
import { Router } from 'express';

/** What /readyz asks of the database (the Prisma client): ops sits below db. */
export interface Pingable {
  $queryRawUnsafe(query: string): Promise<unknown>;
}

export interface Readiness {
  db: Pingable | null;
  migrated: boolean;
  problem: string | null;
}

export function healthRoutes(state: Readiness, opts: { timeoutMs?: number } = {}): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  router.get('/readyz', async (_req, res) => {
    if (!state.migrated || !state.db || state.problem) {
      // Start-up (migrations running) is expected: info. A problem (database, encryption key): warn; it is logged where it happens.
      res.locals.accessLogLevel = state.problem ? 'warn' : 'info';
      res.status(503).json({ ready: false, reason: state.problem ?? 'database migrations have not been applied yet' });
      return;
    }
    try {
      await withTimeout(state.db.$queryRawUnsafe('SELECT 1'), opts.timeoutMs ?? 2_000);
      res.json({ ready: true });
    } catch (e) {
      res.locals.accessLogLevel = 'warn';
      res.status(503).json({ ready: false, reason: `database unreachable: ${(e as Error).message.split('\n')[0]}` });
    }
  });
  return router;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(`no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(t));
}
