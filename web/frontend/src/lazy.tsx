// Pages and settings sections load as their own chunks (Vite dynamic imports):
// a page's code arrives when it is first opened. Until then the caller's
// placeholder holds the page's space, so nothing jumps when it renders.
import type { ComponentChildren, ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from './i18n.ts';

export type Loader<P> = () => Promise<ComponentType<P>>;

const loaded = new Map<Loader<any>, ComponentType<any>>();

/** Renders what `load` resolves to, with `fallback` until then; a loaded chunk renders at once next time. */
export function Lazy<P extends object>(props: { load: Loader<P>; props: P; fallback: ComponentChildren }) {
  const [, rerender] = useState(0);
  const [failed, setFailed] = useState(false);
  const Current = loaded.get(props.load) as ComponentType<P> | undefined;
  useEffect(() => {
    if (loaded.has(props.load)) return;
    let live = true;
    props.load().then(
      (c) => {
        loaded.set(props.load, c);
        if (live) rerender((n) => n + 1);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [props.load]);
  if (Current) return <Current {...props.props} />;
  if (failed) return <s-banner tone="critical" heading={t('error.pageLoad')}>{t('error.reload')}</s-banner>;
  return <>{props.fallback}</>;
}
