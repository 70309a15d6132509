// The shop's zone for the page's clock times, without making the customer wait
// on Shopify. The lookup (web/app.ts: the admin's cached Shop.ianaTimezone, an
// hour per shop) answers at once when cached; otherwise it gets ZONE_WAIT_MS, then
// the page shows UTC and the answer, when it comes, is cached for the next view.
// One question per shop at a time.

/** The shop's IANA zone, or UTC; never rejects. */
export type ZoneLookup = (domain: string) => Promise<string>;

export const ZONE_WAIT_MS = 500;

export function boundedZoneLookup(lookup: ZoneLookup, waitMs = ZONE_WAIT_MS): ZoneLookup {
  const asking = new Map<string, Promise<string>>();
  return async (domain) => {
    let answer = asking.get(domain);
    if (!answer) {
      answer = lookup(domain).catch(() => 'UTC').finally(() => asking.delete(domain));
      asking.set(domain, answer);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(resolve, waitMs, 'UTC');
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}
