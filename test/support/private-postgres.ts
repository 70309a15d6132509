// A PostgreSQL cluster of the test's own: initdb into a temporary directory, on a free port,
// so a test can restart PostgreSQL mid-burst without touching the shared server other tests use.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PrivatePostgres {
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl restart -m immediate`: every connection dropped, recovery from the WAL, as after a crash. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return join(root, version, 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'sdd-pg-'));
  // initdb refuses to run as root: run the server binaries as the postgres user then.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  // Asynchronous: the app under test shares this process's event loop and must keep serving meanwhile.
  const run = (cmd: string, args: string[]) =>
    promisify(execFile)(asRoot ? 'runuser' : join(bin, cmd), asRoot ? ['-u', 'postgres', '--', join(bin, cmd), ...args] : args, { timeout: 120_000 });
  const data = join(dir, 'data');
  const port = await freePort();
  await run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=200`;
  await run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', opts, '-w', 'start']);
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  return {
    url,
    async createDatabase(name) {
      const c = new pg.Client({ connectionString: url('postgres') });
      await c.connect();
      await c.query(`CREATE DATABASE "${name}"`);
      await c.end();
      return url(name);
    },
    async restart() {
      await run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', opts, '-m', 'immediate', '-w', 'restart']);
    },
    async stop() {
      try {
        await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
