// "Is same-day open now for this pickup store?" — the one seam between checkout
// rates and delivery windows (web/windows/). Pure: settings and time in.
import type { Settings } from '../settings/schema.ts';
import { sameDayOpen } from '../windows/schedule.ts';
import { windowFor } from '../windows/settings.ts';

export interface OpenQuery {
  shop: string;
  /** The courier pickup store the rate is for. */
  storeId: string;
  now: Date;
  /** The shop's settings (their `windows` section decides). */
  settings?: Settings;
  /** Shopify location ids mapped to this pickup store (none: the store is the environment's default). */
  locationIds?: string[];
}

export type SameDayOpen = (q: OpenQuery) => boolean | Promise<boolean>;


/**
 * Open when any location served by the store would dispatch an order paid now
 * (its own window, else the default). No window configured means open.
 */
export const windowsOpen: SameDayOpen = ({ settings, locationIds = [], now }) => {
  if (!settings) return true;
  const ids: Array<string | null> = locationIds.length ? locationIds : [null];
  return ids.some((id) => {
    const config = windowFor(settings.windows, id);
    return !config || sameDayOpen(config, now.getTime());
  });
};
