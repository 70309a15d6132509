// A tiny webhook receiver on 127.0.0.1 that records each request's headers and raw body
// bytes. Used by the contract tests (and handy in demos) to look at what the sandbox sends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  /** Status we answered. */
  answered: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once at least `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** `respond` picks the status for the n-th request (0-based); default 200. */
export async function startWebhookReceiver(opts: { respond?: (index: number, req: ReceivedWebhook) => number } = {}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: ReceivedWebhook = { headers: req.headers, rawBody: Buffer.concat(chunks), answered: 200 };
      entry.answered = opts.respond?.(received.length, entry) ?? 200;
      received.push(entry);
      res.writeHead(entry.answered, { 'content-type': 'application/json' }).end('{}');
      for (const w of waiters.filter((x) => received.length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/courier`,
    received,
    waitFor(n, timeoutMs = 10_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`expected ${n} webhooks, got ${received.length}`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(t), resolve(received)) });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
