// The tracking page's URL token. A stored random value (not an HMAC of the
// delivery id): it reveals nothing, survives ENCRYPTION_KEY rotation (links in
// sent emails keep working), and one link can be replaced alone. docs/tracking.md.
import { randomBytes } from 'node:crypto';

/** 24 random bytes = 192 bits, base64url: 32 characters. */
export const TOKEN_BYTES = 24;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;

export function newTrackingToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Anything else is answered "not found" without a database read. */
export function isTrackingToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

export const TRACKING_PATH = '/track';

export function trackingPageUrl(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, '')}${TRACKING_PATH}/${token}`;
}
