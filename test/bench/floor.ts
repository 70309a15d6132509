// The floor for bench:intake: what an orders/paid webhook costs when done right and
// nothing more. Raw body → the HMAC-SHA256 check Shopify specifies (base64 of the raw
// body under the API secret, compared in constant time, as @shopify/shopify-api does)
// → one durable insert through the driver directly (better-sqlite3 in WAL with
// synchronous=NORMAL, as the app's SQLite; or pg) → 200. A child process, like the app.
// Env: FLOOR_DATABASE (file:… or postgres://…), SHOPIFY_API_SECRET.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';

const secret = process.env.SHOPIFY_API_SECRET!;
const url = process.env.FLOOR_DATABASE!;
const DDL = `CREATE TABLE IF NOT EXISTS floor_receipt (webhook_id TEXT PRIMARY KEY, topic TEXT NOT NULL, shop TEXT NOT NULL, body TEXT NOT NULL, received_at TEXT NOT NULL)`;
const SQL = `INSERT INTO floor_receipt (webhook_id, topic, shop, body, received_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (webhook_id) DO NOTHING`;

let insert: (row: string[]) => Promise<void>;
let close: () => Promise<void>;
if (url.startsWith('postgres')) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query(DDL);
  insert = async (row) => void (await pool.query(SQL, row));
  close = () => pool.end();
} else {
  const db = new Database(url.replace(/^file:/, ''));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(DDL);
  const stmt = db.prepare(SQL.replace(/\$\d/g, '?'));
  insert = async (row) => void stmt.run(...row);
  close = async () => void db.close();
}

function validHmac(body: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(header, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const h = req.headers;
    if (!validHmac(body, h['x-shopify-hmac-sha256'])) {
      res.writeHead(401).end();
      return;
    }
    insert([String(h['x-shopify-webhook-id']), String(h['x-shopify-topic']), String(h['x-shopify-shop-domain']), body.toString('utf8'), new Date().toISOString()]).then(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
      () => res.writeHead(500).end(),
    );
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as { port: number }).port, msg: 'listening' })));
process.on('SIGTERM', () => server.close(() => void close().then(() => process.exit(0))));
