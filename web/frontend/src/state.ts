// Small data hooks over the admin API.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get } from './api.ts';

export interface Resource<T> {
  data: T | null;
  error: string | null;
  /** The failed answer behind `error` (its status and code), or null. */
  failure: ApiError | null;
  loading: boolean;
  reload(): Promise<T | null>;
  set(value: T): void;
}

export function useResource<T>(path: string | null): Resource<T> {
  const [data, setData] = useState<T | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const current = useRef<AbortController | null>(null);

  const reload = useCallback(async () => {
    if (!path) return null;
    current.current?.abort();
    const ctl = new AbortController();
    current.current = ctl;
    setLoading(true);
    try {
      const v = await get<T>(path, ctl.signal);
      if (ctl.signal.aborted) return null;
      setData(v);
      setFailure(null);
      return v;
    } catch (e) {
      if ((e as Error).name === 'AbortError') return null;
      setFailure(e instanceof ApiError ? e : new ApiError(0, String(e)));
      return null;
    } finally {
      if (!ctl.signal.aborted) setLoading(false);
    }
  }, [path]);

  useEffect(() => {
    void reload();
    return () => current.current?.abort();
  }, [reload]);

  return { data, error: failure?.message ?? null, failure, loading, reload, set: setData };
}

/** Runs an async action once at a time, with its busy flag. */
export function useAction() {
  const [busy, setBusy] = useState<string | null>(null);
  const run = useCallback(async <T,>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(name);
    try {
      return await fn();
    } finally {
      setBusy(null);
    }
  }, []);
  return { busy, run };
}
