// The production path without Docker (images cannot be built here): the Dockerfile's
// build stage runs in a fresh clone (tracked files only), its runtime stage is
// assembled from the COPY lines, and its CMD starts the app in production mode,
// which must become ready (its HEALTHCHECK passing) and stop on SIGTERM.
// Slow (a real `npm ci`): the `deploy` project, run by `npm run test:deploy` and .ci/run.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptEntry } from '../../dev/demo/stack.ts';
import { envPairs, parseDockerfile, type Stage } from '../support/dockerfile.ts';
import { ROOT } from '../support/paths.ts';
import { waitFor } from '../support/process.ts';
import { scratchDatabase } from '../support/scratch-db.ts';

const dockerfile = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const [build, runtime] = dockerfile as [Stage, Stage];
const work = mkdtempSync(join(tmpdir(), 'sdd-deploy-'));
const buildDir = join(work, 'build');
const runtimeDir = join(work, 'runtime');
// Node 22.18+ first on PATH, as in the image.
const PATH = `${dirname(process.execPath)}:${process.env.PATH}`;

/** A path in a stage (WORKDIR /app) → the same path in its directory here. */
const mapPath = (workdir: string, dir: string, p: string) => (p.startsWith(`${workdir}/`) || p === workdir ? join(dir, p.slice(workdir.length)) : resolve(dir, p));

// A build machine's own trust for its registry (a TLS-intercepting proxy's CA): without it every
// manifest npm must look up waits out failed TLS attempts before falling back to its cache.
const registryTrust = Object.fromEntries(
  ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'npm_config_cafile', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
);
const runtimeEnv: Record<string, string> = {};
let cmd: string[] = [];
let healthcheck: string[] = [];
let user = 'root';
let volumes: string[] = [];

beforeAll(() => {
  mkdirSync(buildDir, { recursive: true });
  mkdirSync(runtimeDir, { recursive: true });
  let workdir = '/';
  for (const { op, args } of build.lines) {
    if (op === 'WORKDIR') workdir = args;
    else if (op === 'COPY' && args === '. .') {
      // A fresh clone: the files git tracks (and new ones it does not ignore), as they are now.
      const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
      for (const f of files) if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(buildDir, f), { recursive: true });
    } else if (op === 'RUN') {
      const r = spawnSync('sh', ['-c', args], { cwd: buildDir, env: { PATH, HOME: process.env.HOME, CI: 'true', ...registryTrust }, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`build stage: RUN ${args} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
    } else throw new Error(`build stage: ${op} is not run by this test; teach it or keep the Dockerfile to the listed instructions`);
  }
  const buildWorkdir = workdir;
  workdir = '/';
  for (const { op, args } of runtime.lines) {
    if (op === 'WORKDIR') workdir = args;
    else if (op === 'ENV') for (const [k, v] of envPairs(args)) runtimeEnv[k] = v;
    else if (op === 'COPY') {
      const parts = args.split(/\s+/).filter((a) => !a.startsWith('--chown='));
      expect(parts[0]).toBe(`--from=${build.name}`);
      const [src, dest] = [parts[1]!, parts[2]!];
      cpSync(mapPath(buildWorkdir, buildDir, src), mapPath(workdir, runtimeDir, dest), { recursive: true });
    } else if (op === 'USER') user = args;
    else if (op === 'VOLUME') volumes = JSON.parse(args);
    else if (op === 'EXPOSE') continue;
    else if (op === 'HEALTHCHECK') healthcheck = JSON.parse(args.slice(args.indexOf('CMD') + 3));
    else if (op === 'CMD') cmd = JSON.parse(args);
    else throw new Error(`runtime stage: ${op} is not run by this test; teach it or keep the Dockerfile to the listed instructions`);
  }
}, 900_000);

afterAll(() => rmSync(work, { recursive: true, force: true }), 300_000); // two node_modules trees

function startRuntime(env: Record<string, string>) {
  expect(cmd[0]).toBe('node');
  const child = spawn(process.execPath, cmd.slice(1), { cwd: runtimeDir, env: { PATH, ...runtimeEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, output: () => out };
}

const production = {
  PORT: '0',
  SHOPIFY_API_KEY: 'deploy-test-key',
  SHOPIFY_API_SECRET: 'deploy-test-secret',
  SHOPIFY_APP_URL: 'https://dispatch.example.com',
  ENCRYPTION_KEY: 'd'.repeat(64),
};

describe('the Dockerfile', () => {
  it('builds on Node 22 slim in one stage and runs as a non-root user with a data volume in another', () => {
    expect(dockerfile).toHaveLength(2);
    for (const s of dockerfile) expect(s.from).toMatch(/^node:22[\w.-]*-slim$/);
    expect(user).not.toMatch(/^(root|0)$/);
    expect(volumes).toEqual(['/app/data']);
    expect(runtimeEnv.NODE_ENV).toBe('production');
    // node directly (SIGTERM reaches the app), the same entry as `npm start`.
    expect(cmd).toEqual(['node', scriptEntry('start')]);
    expect(healthcheck.join(' ')).toContain('/readyz');
  });

  it('gives a runtime without dev packages, with the built admin frontend and the generated Prisma clients', () => {
    expect(existsSync(join(runtimeDir, 'node_modules/vitest'))).toBe(false);
    expect(existsSync(join(runtimeDir, 'node_modules/vite'))).toBe(false);
    expect(existsSync(join(runtimeDir, 'web/frontend/dist/index.html'))).toBe(true);
    expect(existsSync(join(runtimeDir, 'node_modules/.prisma/client-postgres'))).toBe(true);
    expect(existsSync(join(runtimeDir, 'data'))).toBe(true);
  });

  it.each(['sqlite', 'postgres'] as const)('starts in production mode on %s, becomes ready (HEALTHCHECK passes), and stops on SIGTERM', async (provider) => {
    const db = provider === 'postgres' ? await scratchDatabase('postgres') : null;
    try {
      const app = startRuntime({ ...production, ...(db ? { DATABASE_URL: db.url } : {}) });
      try {
        const port = await waitFor(async () => app.output().match(/"port":(\d+),[^\n]*"msg":"listening"/)?.[1], 'listening', 60_000);
        await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, '/readyz 200', 120_000);
        const probe = spawnSync(process.execPath, healthcheck.slice(1), { env: { PATH, ...runtimeEnv, PORT: port }, encoding: 'utf8' });
        expect(probe.status, probe.stderr).toBe(0);
        if (!db) expect(existsSync(join(runtimeDir, 'data/same-day-dispatch.db'))).toBe(true); // in the volume
        app.child.kill('SIGTERM');
        expect(await app.exited).toBe(0);
      } finally {
        app.child.kill('SIGKILL');
      }
    } finally {
      await db?.drop();
    }
  });
});
