// Small helpers of the courier client's HTTP exchange (client.ts): reading bodies and
// headers safely, and describing network failures without secrets.
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { oneLine } from './errors.ts';

// One pooled agent per connect timeout, shared by all clients (clients are cheap, per call).
const agents = new Map<number, Agent>();
export function sharedAgent(connectTimeoutMs: number): Agent {
  let a = agents.get(connectTimeoutMs);
  if (!a) {
    a = new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 4_000 });
    agents.set(connectTimeoutMs, a);
  }
  return a;
}

export async function readCapped(body: Dispatcher.ResponseData['body'], max: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += b.length;
    if (size > max) {
      body.destroy();
      return null;
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Error codes are shown as they are only when they look like codes. */
export function safeCode(code: string | undefined): boolean {
  return !!code && /^[\w.:-]{1,64}$/.test(code);
}

/** Scope names as shown to merchants: scope-like words only, at most 20. */
export function safeScope(scope: string): string | undefined {
  const words = scope.split(/[\s,]+/).filter((w) => /^[\w.:/-]{1,64}$/.test(w)).slice(0, 20);
  return words.length ? words.join(' ') : undefined;
}

export function headerValue(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

export function isJsonObject(text: string | undefined): boolean {
  if (!text) return false;
  try {
    const v = JSON.parse(text);
    return !!v && typeof v === 'object';
  } catch {
    return false;
  }
}

/** A short, secret-free description of a network failure. */
export function describeNetworkError(e: unknown): string {
  const err = e as { name?: string; code?: string; cause?: { code?: string } } | undefined;
  const code = err?.code ?? err?.cause?.code;
  if (err?.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'the request timed out';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connecting timed out';
  if (err?.name === 'AbortError') return 'the request was aborted';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') return 'the connection was closed before a response arrived';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the courier host name could not be resolved';
  return oneLine(`network error${code ? ` (${code})` : ''}`);
}

