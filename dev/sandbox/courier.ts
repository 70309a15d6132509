// Sandbox courier: an in-memory HTTP server that behaves as the Delivery Orders API spec
// describes, with our documented choices where the spec is silent (README section
// "Courier sandbox and Delivery API choices"), fault injection, and a control API under
// /_sandbox (no auth: it binds to 127.0.0.1 by default and is for tests and demos only).
//
// Three parts, wired here: the state (state.ts: data and operations, no I/O), the router
// (router.ts: HTTP in and out) and the sender (webhooks.ts: signed status webhooks out).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Logger } from '../../web/ops/logger.ts';
import { DEFAULT_SANDBOX_APP, DEFAULT_SANDBOX_SETTINGS, stripUndefined } from './model.ts';
import { SandboxState } from './state.ts';
import { sandboxRouter } from './router.ts';
import { WebhookSender } from './webhooks.ts';
import type { SandboxAppConfig, SandboxSettings } from './types.ts';

export type * from './types.ts';
export { DEFAULT_SANDBOX_APP, DEFAULT_SANDBOX_SETTINGS, SANDBOX_SCOPES } from './model.ts';

export interface SandboxOptions extends Partial<SandboxSettings> {
  /** 0 = ephemeral (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: one app, DEFAULT_SANDBOX_APP. */
  apps?: SandboxAppConfig[];
  /** Clock for token expiry, timestamps and webhook signatures (plus the control API's offset). */
  now?: () => number;
  log?: Logger;
}

export interface RunningSandbox {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startSandboxCourier(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const { port = 0, host = '127.0.0.1', apps, now = Date.now, log, ...settingOverrides } = opts;
  let sender: WebhookSender | undefined;
  const state = new SandboxState({
    settings: { ...DEFAULT_SANDBOX_SETTINGS, ...stripUndefined(settingOverrides) },
    apps: apps ?? [DEFAULT_SANDBOX_APP],
    now,
    emit: (event) => sender!.emit(event),
  });
  sender = new WebhookSender(() => state.settings, () => state.now(), log);

  // Scheduled status progression: every order one step per stepIntervalMs (0 = off).
  let timer: NodeJS.Timeout | undefined;
  const reschedule = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (state.settings.stepIntervalMs > 0) {
      timer = setInterval(() => state.tick(), state.settings.stepIntervalMs);
      timer.unref();
    }
  };
  reschedule();

  let actualPort = 0;
  const app = express();
  app.disable('x-powered-by');
  app.use(sandboxRouter({ state, sender, url: () => `http://${host}:${actualPort}`, reschedule, log }));
  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  actualPort = (server.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${actualPort}`,
    port: actualPort,
    close() {
      closed ??= (async () => {
        if (timer) clearInterval(timer);
        await sender.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}
