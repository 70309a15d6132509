// The shop as the page shows it (name, contact, language, clock), without making
// the customer wait on Shopify. The lookup (web/app.ts: the cached shop profile,
// web/shopify/shop-profile.ts, an hour per shop) answers at once when cached;
// otherwise it gets SHOPIFY_WAIT_MS, then the page goes on without it (the shop's
// handle, no contact, UTC) and the answer, when it comes, is cached for the next
// view. One question per shop at a time.
import { UNKNOWN_SHOP, type ShopProfile } from '../shopify/shop-profile.ts';

/** The shop's profile, or UNKNOWN_SHOP; never rejects. */
export type ProfileLookup = (domain: string) => Promise<ShopProfile>;

export const SHOPIFY_WAIT_MS = 500;

export function boundedProfileLookup(lookup: ProfileLookup, waitMs = SHOPIFY_WAIT_MS): ProfileLookup {
  const asking = new Map<string, Promise<ShopProfile>>();
  return async (domain) => {
    let answer = asking.get(domain);
    if (!answer) {
      answer = lookup(domain).catch(() => UNKNOWN_SHOP).finally(() => asking.delete(domain));
      asking.set(domain, answer);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<ShopProfile>((resolve) => {
      timer = setTimeout(resolve, waitMs, UNKNOWN_SHOP);
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** What the page says about the store: Shopify's name, else the shop's handle ("demo" for demo.myshopify.com). */
export interface StoreContact {
  name: string;
  email: string | null;
  phone: string | null;
}

export function storeContact(domain: string, p: ShopProfile): StoreContact {
  return { name: p.name ?? domain.replace(/\.myshopify\.com$/, ''), email: p.contactEmail, phone: p.phone };
}
