// A client for the admin API (/api/*) as the embedded pages call it: a fresh
// App Bridge session token per request. Every response body is kept, so a test
// can scan all of them (e.g. for secrets).
import { sessionToken, type SessionTokenOptions } from './session-token.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface AdminClient {
  shop: string;
  get<T = any>(path: string, init?: RequestInit): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, init?: RequestInit): Promise<ApiResponse<T>>;
  put<T = any>(path: string, body?: unknown, init?: RequestInit): Promise<ApiResponse<T>>;
  request<T = any>(method: string, path: string, body?: unknown, init?: RequestInit): Promise<ApiResponse<T>>;
}

/** All response texts of all clients in this process, newest last. */
export const recordedResponses: string[] = [];

export function adminClient(appUrl: string, shop: string, tokenOpts: SessionTokenOptions = {}): AdminClient {
  async function request<T>(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<ApiResponse<T>> {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${sessionToken(shop, tokenOpts)}`);
    if (body !== undefined) headers.set('content-type', 'application/json');
    const res = await fetch(`${appUrl}${path}`, { ...init, method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    recordedResponses.push(`${method} ${path} ${res.status} ${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('; ')}\n${text}`);
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }
  return {
    shop,
    request,
    get: (path, init) => request('GET', path, undefined, init),
    post: (path, body, init) => request('POST', path, body ?? {}, init),
    put: (path, body, init) => request('PUT', path, body, init),
  };
}
