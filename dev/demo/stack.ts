// The whole system as separate processes on one machine: the sandbox courier,
// the shop simulator and the app, each a child process on a free port, over a
// fresh database. Shared by `npm run demo` (dev/demo/main.ts) and the black-box
// end-to-end suite (test/e2e), so the orchestration exists once.
//
// Everything outside these processes goes through public interfaces only: the
// sandbox's and the simulator's HTTP control APIs, the app's HTTP endpoints, and
// the operator CLI run as a child process (`npm run cli -- ...`).
//
// Children run the same commands as the package.json scripts (`npm run sandbox`,
// `npm run shop-sim`, `npm run dev` (the app as `npm start` runs it, routed to the simulator), `npm run cli`), read from package.json and
// started with this Node binary directly, so there is no npm wrapper process
// between us and them: signals (SIGTERM, the e2e suite's SIGKILL) reach the real
// process. Their output goes to log files in the stack's directory, never to
// our terminal.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { SandboxControl } from '../sandbox/control.ts';
import { ShopSimControl } from '../shop-sim/control.ts';

export const ROOT = resolve(import.meta.dirname, '../..');

/** Webhook retry waits for both senders: short, so a restarted app catches up in seconds (default schedules wait up to minutes). */
export const FAST_WEBHOOK_RETRIES_MS = [300, 700, 1_500, 3_000, 5_000, 8_000, 13_000];

export interface StackOptions {
  /** Where the database (SQLite) and the logs go. Default: a new directory under the OS temp dir. */
  dir?: string;
  /** A postgres:// URL of a server: a fresh database is created on it (and dropped by stop()). Default: SQLite in `dir`. */
  postgresUrl?: string;
  /** Sandbox automatic status progression, ms per step (0 = only on command). Default 0. */
  stepIntervalMs?: number;
  /** The app's RECONCILE_INTERVAL_SECONDS. Default 2. */
  reconcileIntervalSeconds?: number;
  /** Start the local Nominatim double (`npm run geocoder`) as a 4th child and point the app at it. Default false. */
  geocoder?: boolean;
  /** Extra environment for the app and the CLI. */
  appEnv?: Record<string, string>;
  /** Called with one line per start-up step (the demo prints them). */
  onStep?: (line: string) => void;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Stack {
  dir: string;
  database: { url: string; provider: 'sqlite' | 'postgres' };
  urls: { sandbox: string; shopSim: string; app: string; geocoder?: string };
  logs: { sandbox: string; shopSim: string; app: string; cli: string; geocoder: string };
  courier: SandboxControl;
  sim: ShopSimControl;
  /** The environment the app and the CLI run with (ENCRYPTION_KEY, DATABASE_URL, ...). */
  appEnv: Record<string, string>;
  /** `npm run cli -- <args>` as a child process; never throws on a non-zero exit. */
  cli(args: string[], opts?: { env?: Record<string, string>; input?: string }): Promise<CliResult>;
  /** The CLI with --json; throws the CLI's one-line error on a non-zero exit. */
  cliJson<T>(args: string[], opts?: { env?: Record<string, string> }): Promise<T>;
  /** The CLI; throws its one-line error on a non-zero exit. Returns stdout. */
  cliOk(args: string[], opts?: { env?: Record<string, string>; input?: string }): Promise<string>;
  /** SIGKILL the app (no shutdown at all) and wait until it is gone. */
  killApp(): Promise<void>;
  /** Start the app again on the same port and database; resolves when /readyz answers 200. */
  startApp(): Promise<void>;
  appRunning(): boolean;
  /** The last lines of a child's log, for error messages. */
  tail(name: keyof Stack['logs'], lines?: number): string;
  /** Stops every child (SIGTERM, then SIGKILL after a grace period) and drops a PostgreSQL database. */
  stop(opts?: { removeDir?: boolean }): Promise<void>;
}

// ---- child processes ----------------------------------------------------------

/** Every child still running, so an exiting parent can take them down (see process.on('exit') below). */
const LIVE = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of LIVE) {
    try {
      c.kill('SIGKILL');
    } catch {}
  }
});

class Child {
  readonly name: string;
  readonly logFile: string;
  readonly proc: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(name: string, args: string[], env: Record<string, string>, logFile: string) {
    this.name = name;
    this.logFile = logFile;
    const fd = openSync(logFile, 'a');
    try {
      // Own process group: a Ctrl-C in the terminal reaches only us, and we stop the children in order
      // (the app first, while the courier and the simulator still answer its in-flight calls).
      this.proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd], detached: true });
    } finally {
      closeSync(fd);
    }
    LIVE.add(this.proc);
    this.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null) => {
        LIVE.delete(this.proc);
        resolve({ code, signal });
      };
      this.proc.once('exit', done);
      this.proc.once('error', (e) => {
        appendFileSync(logFile, `\n[stack] could not start ${name}: ${e.message}\n`);
        done(null, null);
      });
    });
  }

  get running(): boolean {
    return LIVE.has(this.proc);
  }

  /** SIGTERM (the children shut down gracefully), SIGKILL after graceMs. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.proc.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), graceMs)));
    const r = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (r === 'late') {
      appendFileSync(this.logFile, `\n[stack] ${this.name} did not stop within ${graceMs} ms of SIGTERM: SIGKILL\n`);
      this.proc.kill('SIGKILL');
      await this.exited;
    }
  }

  async kill(): Promise<void> {
    if (!this.running) return;
    this.proc.kill('SIGKILL');
    await this.exited;
  }
}

/** The file a package.json script runs: "node dev/sandbox/main.ts" → dev/sandbox/main.ts. */
export function scriptEntry(script: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const cmd = pkg.scripts?.[script];
  const m = cmd ? /^(?:exec )?node (\S+\.ts)$/.exec(cmd.trim()) : null; // `exec`: npm start signals node itself
  if (!m) throw new Error(`package.json script "${script}" is ${cmd ? `"${cmd}"` : 'missing'}; the demo expects "[exec] node <file>.ts"`);
  return m[1]!;
}

function tailOf(file: string, lines = 25): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for the "… listening on http://…" line a server prints once it is bound. */
async function urlFromLog(child: Child, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const m = pattern.exec(readFileSync(child.logFile, 'utf8'));
    if (m) return m[1]!;
    if (!child.running) throw new Error(`${child.name} exited during start-up; its log (${child.logFile}) ends with:\n${tailOf(child.logFile)}`);
    await sleep(50);
  }
  throw new Error(`${child.name} did not print its URL within ${timeoutMs / 1000} s; log: ${child.logFile}\n${tailOf(child.logFile)}`);
}

async function waitReady(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!child.running) throw new Error(`${child.name} exited during start-up; its log (${child.logFile}) ends with:\n${tailOf(child.logFile)}`);
    try {
      const res = await request(`${url}/readyz`, { headersTimeout: 2_000, bodyTimeout: 2_000 });
      last = `HTTP ${res.statusCode} ${(await res.body.text()).slice(0, 200)}`;
      if (res.statusCode === 200) return;
    } catch (e) {
      last = (e as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`${child.name} was not ready within ${timeoutMs / 1000} s (last /readyz: ${last}); log: ${child.logFile}\n${tailOf(child.logFile)}`);
}

// ---- database -----------------------------------------------------------------

/** A postgres:// URL, if the environment asks for PostgreSQL (E2E_DATABASE_URL, else DATABASE_URL). */
export function postgresFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env.E2E_DATABASE_URL || env.DATABASE_URL;
  return url && /^postgres(ql)?:\/\//.test(url) ? url : undefined;
}

async function withPg<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(`cannot connect to PostgreSQL at ${serverUrl.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@')}: ${(e as Error).message}`);
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// ---- the stack ----------------------------------------------------------------

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'same-day-dispatch-'));
  mkdirSync(dir, { recursive: true });
  const step = opts.onStep ?? (() => {});
  const logs = { sandbox: join(dir, 'sandbox.log'), shopSim: join(dir, 'shop-sim.log'), app: join(dir, 'app.log'), cli: join(dir, 'cli.log'), geocoder: join(dir, 'geocoder.log') };
  for (const f of Object.values(logs)) writeFileSync(f, '');

  // A clean environment: nothing from the caller's shell (NODE_ENV, SHOPIFY_*, DATABASE_URL) leaks into the children.
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, TMPDIR: process.env.TMPDIR ?? tmpdir(), NODE_ENV: 'development' };
  const children: Child[] = [];
  let pgDatabase: { server: string; name: string } | null = null;

  const stopAll = async (removeDir: boolean) => {
    // The app first, so its in-flight work can finish against live peers; then the others.
    await Promise.all(children.filter((c) => c.name === 'app').map((c) => c.stop()));
    await Promise.all(children.map((c) => c.stop()));
    if (pgDatabase) {
      const { server, name } = pgDatabase;
      pgDatabase = null;
      await withPg(server, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => {});
    }
    if (removeDir) rmSync(dir, { recursive: true, force: true });
  };

  try {
    // Database: a fresh one, never the repo's data/.
    let databaseUrl: string;
    let provider: 'sqlite' | 'postgres';
    if (opts.postgresUrl) {
      const name = `sdd_e2e_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
      await withPg(opts.postgresUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
      pgDatabase = { server: opts.postgresUrl, name };
      const u = new URL(opts.postgresUrl);
      u.pathname = `/${name}`;
      databaseUrl = u.toString();
      provider = 'postgres';
    } else {
      databaseUrl = `file:${join(dir, 'same-day-dispatch.db')}`;
      provider = 'sqlite';
    }

    // The app's port is chosen first: its URL goes into the simulator (webhook target) and the app's own config.
    const appPort = await freePort();
    const appUrl = `http://127.0.0.1:${appPort}`;

    const sandbox = new Child('sandbox courier', [scriptEntry('sandbox'), '--port', '0', '--step-ms', String(opts.stepIntervalMs ?? 0)], { ...base, LOG_LEVEL: 'info' }, logs.sandbox);
    children.push(sandbox);
    const shopSim = new Child('shop simulator', [scriptEntry('shop-sim'), '--port', '0', '--app-url', appUrl], { ...base, LOG_LEVEL: 'info' }, logs.shopSim);
    children.push(shopSim);
    const [sandboxUrl, shopSimUrl] = await Promise.all([
      urlFromLog(sandbox, /Sandbox courier listening on (http:\/\/\S+)/),
      urlFromLog(shopSim, /Shop simulator listening on (http:\/\/\S+)/),
    ]);
    step(`sandbox courier  ${sandboxUrl}`);
    step(`shop simulator   ${shopSimUrl}`);
    let geocoderUrl: string | undefined;
    if (opts.geocoder) {
      const geocoder = new Child('geocoder double', [scriptEntry('geocoder'), '--port', '0'], base, logs.geocoder);
      children.push(geocoder);
      geocoderUrl = await urlFromLog(geocoder, /Geocoder double \(Nominatim format\) on (http:\/\/\S+)/);
      step(`geocoder double  ${geocoderUrl}`);
    }

    const courier = new SandboxControl(sandboxUrl);
    const sim = new ShopSimControl(shopSimUrl);
    // Short webhook retry schedules on both sides: a restarted app catches up in seconds.
    await courier.updateSettings({ webhookRetryDelaysMs: FAST_WEBHOOK_RETRIES_MS });
    await sim.updateSettings({ webhookRetryDelaysMs: FAST_WEBHOOK_RETRIES_MS });

    const appEnv: Record<string, string> = {
      ...base,
      PORT: String(appPort),
      SHOPIFY_APP_URL: appUrl,
      DATABASE_URL: databaseUrl,
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      COURIER_TEST_BASE_URL: sandboxUrl,
      SHOP_SIMULATOR_URL: shopSimUrl,
      RECONCILE_INTERVAL_SECONDS: String(opts.reconcileIntervalSeconds ?? 2),
      ...(geocoderUrl ? { GEOCODER_PROVIDER: 'nominatim', GEOCODER_URL: geocoderUrl } : {}),
      LOG_LEVEL: 'info',
      // The app's movable clock (dev/clock.ts): the delivery-windows demo step moves it.
      DEV_CLOCK_FILE: join(dir, 'dev-clock'),
      // pg-boss: a job whose worker was killed is retried after this long (default 300 s).
      ...(provider === 'postgres' ? { JOB_TIMEOUT_SECONDS: '15' } : {}),
      ...opts.appEnv,
    };

    let app: Child | null = null;
    let starts = 0;
    const startApp = async () => {
      if (app?.running) throw new Error('the app is already running');
      if (starts++ > 0) appendFileSync(logs.app, `\n[stack] ---- app restarted (start #${starts}) at ${new Date().toISOString()} ----\n`);
      app = new Child('app', [scriptEntry('dev')], appEnv, logs.app);
      children.push(app);
      await waitReady(app, appUrl);
    };
    await startApp();
    step(`app              ${appUrl}  (${provider === 'sqlite' ? databaseUrl : 'PostgreSQL, fresh database'})`);

    const cliEntry = scriptEntry('cli');
    const cliOnce = (args: string[], o: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn(process.execPath, [cliEntry, ...args], { cwd: ROOT, env: { ...appEnv, LOG_LEVEL: 'warn', ...o.env }, stdio: ['pipe', 'pipe', 'pipe'] });
        LIVE.add(child);
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (d) => (stdout += d));
        child.stderr!.on('data', (d) => (stderr += d));
        child.stdin!.end(o.input ?? '');
        let finished = false;
        const finish = (code: number) => {
          if (finished) return;
          finished = true;
          LIVE.delete(child);
          appendFileSync(logs.cli, `$ npm run cli -- ${args.join(' ')}   → exit ${code} in ${Date.now() - started} ms\n${stderr ? `${stderr.trimEnd()}\n` : ''}`);
          resolve({ code, stdout, stderr });
        };
        child.once('error', (e) => {
          stderr += e.message;
          finish(127);
        });
        child.once('close', (code, signal) => finish(code ?? (signal ? 128 : 1)));
      });
    // A CLI write can fail at once with SQLITE_BUSY ("database is locked") when the app commits between
    // the CLI transaction's first read and its first write (a deferred BEGIN cannot be upgraded then, and
    // the busy timeout does not apply). The transaction was rolled back, so running the command again is
    // safe. Retried here, and written to cli.log, so the scenarios are not at the mercy of that race.
    const cli = async (args: string[], o: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> => {
      for (let attempt = 1; ; attempt++) {
        const r = await cliOnce(args, o);
        if (r.code === 0 || attempt >= 4 || !/database is locked/.test(r.stderr)) return r;
        appendFileSync(logs.cli, `[stack] SQLITE_BUSY (database is locked): running the command again (attempt ${attempt + 1})\n`);
        await sleep(100 * attempt);
      }
    };
    const cliOk = async (args: string[], o: { env?: Record<string, string>; input?: string } = {}) => {
      const r = await cli(args, o);
      if (r.code !== 0) throw new Error(`npm run cli -- ${args.join(' ')}: exit ${r.code}: ${r.stderr.trim().split('\n').at(-1) || '(no message)'}`);
      return r.stdout;
    };

    return {
      dir,
      database: { url: databaseUrl, provider },
      urls: { sandbox: sandboxUrl, shopSim: shopSimUrl, app: appUrl, ...(geocoderUrl ? { geocoder: geocoderUrl } : {}) },
      logs,
      courier,
      sim,
      appEnv,
      cli,
      cliOk,
      async cliJson<T>(args: string[], o: { env?: Record<string, string> } = {}) {
        const out = await cliOk([...args, '--json'], o);
        try {
          return JSON.parse(out) as T;
        } catch {
          throw new Error(`npm run cli -- ${args.join(' ')} --json printed something that is not JSON: ${out.slice(0, 200)}`);
        }
      },
      async killApp() {
        await app?.kill();
      },
      startApp,
      appRunning: () => !!app?.running,
      tail: (name, lines) => tailOf(logs[name], lines),
      stop: (o = {}) => stopAll(o.removeDir ?? false),
    };
  } catch (e) {
    await stopAll(false);
    throw e;
  }
}
