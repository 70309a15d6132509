// fetch for the admin API with an App Bridge session token on every request.
import { t, tOr } from './i18n.ts';

export class ApiError extends Error {
  readonly status: number;
  /** Field-level problems keyed by dotted path, e.g. "test.clientId" or "eligibility.countries.0". */
  readonly errors: Record<string, string>;
  /** The server's code for the problem, when it gave one (e.g. "delivery_not_found"). */
  readonly code: string | null;
  constructor(status: number, message: string, errors: Record<string, string> = {}, code: string | null = null) {
    super(message);
    this.status = status;
    this.errors = errors;
    this.code = code;
  }
}

/** What the merchant reads: a known code in their language, else the server's words, else what to do. */
function messageOf(status: number, data: any): string {
  const code = typeof data?.code === 'string' ? data.code : null;
  if (code) return tOr(`error.${code}`, data?.error ?? '');
  if (typeof data?.error === 'string' && status < 500) return data.error;
  return t(status >= 500 ? 'error.server' : 'error.http', { status });
}

export async function api<T>(path: string, opts: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const token = await shopify.idToken();
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body === undefined ? null : JSON.stringify(opts.body),
      signal: opts.signal ?? null,
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, t('error.network'));
  }
  const text = await res.text();
  let data: any = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) throw new ApiError(res.status, messageOf(res.status, data), data?.errors ?? {}, typeof data?.code === 'string' ? data.code : null);
  return data as T;
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>(path, signal ? { signal } : {});
export const post = <T>(path: string, body: unknown = {}) => api<T>(path, { method: 'POST', body });
export const put = <T>(path: string, body: unknown) => api<T>(path, { method: 'PUT', body });

export function toast(message: string, isError = false): void {
  shopify.toast.show(message, isError ? { isError: true, duration: 8000 } : { duration: 4000 });
}

/** The first error at `path` or below it (e.g. "package.sizes" finds "package.sizes.1.maxKg"). */
export function fieldError(errors: Record<string, string>, path: string): string | undefined {
  if (errors[path]) return errors[path];
  const key = Object.keys(errors).find((k) => k.startsWith(`${path}.`));
  return key ? errors[key] : undefined;
}
