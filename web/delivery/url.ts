// Base URL check. Per-environment URLs are the caller's choice; we only refuse what would
// leak credentials or silently go wrong: plain http to a non-local host, userinfo in the
// URL, query strings or fragments (paths are joined onto it).

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function validateBaseUrl(input: string): { ok: true; url: string } | { ok: false; problem: string } {
  let u: URL;
  try {
    u = new URL(input.trim());
  } catch {
    return { ok: false, problem: 'is not a URL' };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { ok: false, problem: 'must use https' };
  if (u.protocol === 'http:' && !LOCAL_HOSTS.has(u.hostname)) return { ok: false, problem: 'must use https (plain http is only allowed for localhost)' };
  if (u.username || u.password) return { ok: false, problem: 'must not contain a user name or password' };
  if (u.search || u.hash) return { ok: false, problem: 'must not contain a query string or fragment' };
  // Keep any path prefix (e.g. https://api.example.com/delivery) without a trailing slash.
  return { ok: true, url: `${u.origin}${u.pathname.replace(/\/+$/, '')}` };
}
