// Shutdown is bounded by what we control: a connection the driver never hands back (a query
// still running, or a client lost when PostgreSQL restarted, pg-restart.test.ts) does not hold
// Database.close() forever. The process exits after it and the server drops the session.
import { afterEach, describe, expect, it } from 'vitest';
import { DISCONNECT_TIMEOUT_MS } from '../../web/db/client.ts';
import { dropDatabase, freshDatabaseUrl, openTestDatabase, testProvider } from '../support/db.ts';

describe.runIf(testProvider() === 'postgres')('Database.close()', () => {
  let url: string | undefined;
  afterEach(async () => {
    if (url) await dropDatabase(url, { waitForClose: false }); // WITH (FORCE): ends the sleeping session too
  });

  it('returns within its bound while a connection is still checked out', async () => {
    url = await freshDatabaseUrl();
    const database = await openTestDatabase(url);
    const stuck = database.db.$queryRawUnsafe('SELECT pg_sleep(120)').catch(() => 'ended');
    await new Promise((r) => setTimeout(r, 300)); // the query holds its pool client now
    const started = Date.now();
    await database.close();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(DISCONNECT_TIMEOUT_MS - 100);
    expect(took).toBeLessThan(DISCONNECT_TIMEOUT_MS + 10_000);
    void stuck;
  }, 60_000);
});
