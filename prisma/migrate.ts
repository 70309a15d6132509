// `npm run db:migrate`: apply pending migrations to DATABASE_URL (default: the SQLite file under data/).
import { DEFAULT_DATABASE_URL, parseDatabaseUrl, redactDatabaseUrl } from '../web/db/url.ts';
import { migrateDatabase } from '../web/db/migrate.ts';

const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
try {
  parseDatabaseUrl(url);
  const { applied } = await migrateDatabase(url);
  console.log(applied.length ? `Applied ${applied.join(', ')} to ${redactDatabaseUrl(url)}` : `${redactDatabaseUrl(url)} is up to date`);
} catch (e) {
  console.error(`Migration failed: ${(e as Error).message}`);
  process.exit(1);
}
