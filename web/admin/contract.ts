// The admin API's response shapes, as JSON: one source for the server
// (checked against the services by web/admin/contract-check.ts) and the
// embedded pages (web/frontend/src/types.ts re-exports them). Types only, no
// imports, so the browser bundle gets nothing from here.
export type Env = 'test' | 'live';

export interface SecretState {
  set: boolean;
  last4: string | null;
}

export interface Checks {
  credentialsSet: boolean;
  connectionOk: boolean;
  connectionTestedAt: string | null;
  pickupStoreSet: boolean;
  webhookSecretSet: boolean;
  webhookVerified: boolean;
}

export interface EnvironmentInfo {
  environment: Env;
  baseUrl: string | null;
  defaultBaseUrl: string | null;
  clientId: string | null;
  clientSecret: SecretState;
  webhookSecret: SecretState;
  /** The replaced webhook secret while the courier may still sign with it. */
  previousWebhookSecret: { last4: string | null; expiresAt: string; remainingMinutes: number } | null;
  pickupStoreId: string | null;
  locationStores: Record<string, string>;
  endpointId: string;
  webhookUrl: string;
  lastWebhookAt: string | null;
  lastRejectionAt: string | null;
  lastRejectionReason: string | null;
  checks: Checks;
  lastConnectionTest: { ok: boolean; at: string; message: string; current: boolean | null } | null;
  lastWebhookTest: { ok: boolean; at: string; message: string; sent: boolean; received: boolean; verified: boolean } | null;
}

export interface Settings {
  activeEnvironment: Env;
  autoDispatch: boolean;
  eligibility: { shippingLines: string[]; countries: string[]; dispatchTestOrders: boolean };
  serviceType: string;
  sellerType: string;
  fulfilmentType: string;
  package: { defaultWeightKg: string; sizes: Array<{ maxKg: string; size: string }>; largestSize: string; category: string };
  maxDeliveryPrice: string | null;
  fulfillment: {
    trigger: 'accepted' | 'driver_assigned' | 'delivered';
    notifyCustomer: boolean;
    courierName: string;
    trackingUrlTemplate: string | null;
    eventMapping: Record<string, string>;
  };
  reconcile: { staleAfterMinutes: number };
  tracking: { expiryDays: number; estimateMinutes: number };
  rates: RatesSettings;
  windows: WindowsSettings;
  slots: SlotsSettings;
  flow: { sendTestDeliveries: boolean };
}

/** Delivery slots the customer picks on the cart (web/settings/slots-schema.ts). */
export interface SlotsSettings {
  enabled: boolean;
  slotMinutes: number;
  daysAhead: number;
  capacity: number | null;
  sameDayAsap: boolean;
  leadMinutes: number;
  invalidSlot: 'asap' | 'attention';
}

/** Delivery windows (web/windows/settings.ts): a default and per Shopify location id. */
export type Weekday = 'sun' | 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat';
export interface WindowConfig {
  timeZone: string;
  hours: Record<Weekday, { open: string; close: string } | null>;
  cutoff: string | null;
  closures: string[];
  prepMinutes: number;
}
export interface WindowsSettings {
  default: WindowConfig | null;
  locations: Record<string, WindowConfig | null>;
}

export interface OnboardingStep {
  id: 'credentials' | 'connection' | 'pickupStore' | 'webhook' | 'testWebhook' | 'autoDispatch' | 'live';
  title: string;
  done: boolean;
  detail: string;
}

export interface Onboarding {
  environment: Env;
  complete: boolean;
  steps: OnboardingStep[];
  canSwitchToLive: boolean;
  liveBlocker: string | null;
  /** What live still needs (the message key onboarding.liveBlocker.<code>), or null. */
  liveBlockerCode: 'credentials' | 'connection' | 'pickupStore' | 'webhookSecret' | null;
}

export interface SettingsPayload {
  shop: string;
  settings: Settings;
  environments: Record<Env, EnvironmentInfo>;
  onboarding: Onboarding;
  /** The geocoder for addresses without coordinates. active null: none (the page says how to turn one on). Never the key. */
  geocoder: {
    active: { provider: string; host: string; minConfidence: number; source: 'shop' | 'app' } | null;
    /** The shop's own, set on this page; null: the app-wide one applies. */
    own: { provider: 'nominatim'; url: string | null; apiKey: SecretState } | null;
  };
}

export interface ShopLocation {
  id: string;
  gid: string;
  name: string;
  isActive: boolean;
  fulfillsOnlineOrders: boolean;
  city: string | null;
  countryCode: string | null;
}

export type Action = 'dispatch' | 'retry' | 'fix' | 'redispatch' | 'check' | 'resolve';

export interface TimelineEvent {
  id: string;
  kind: string;
  status: string | null;
  message: string | null;
  source: string;
  applied: boolean;
  occurredAt: string;
  receivedAt: string;
}

export interface DeliverySummary {
  id: string;
  orderName: string | null;
  shopifyOrderId: string;
  environment: string | null;
  status: string;
  statusLabel: string;
  attention: { code: string | null; title: string; hint: string | null; detail: string | null } | null;
  price: string | null;
  currency: string | null;
  dispatchJobId: string | null;
  courierOrderId: string | null;
  courierStatus: string | null;
  trackingUrl: string | null;
  lastEvent: TimelineEvent | null;
  actions: Action[];
  createdAt: string;
  updatedAt: string;
  /** SCHEDULED (outside the delivery window): when it goes out, ISO time. */
  scheduledFor: string | null;
  /** The delivery slot the customer chose on the cart (web/slots/), ISO times; null without one. */
  slot: { start: string; end: string } | null;
}

/** What the geocoder said about the address (web/order/snapshot.ts GeocodeNote). */
export interface GeocodeNote {
  state: 'used' | 'candidate';
  provider: string;
  lat: number;
  lng: number;
  confidence: number;
  formattedAddress: string;
  precision?: 'building' | 'street' | 'area';
}

export interface GeocodeCandidateView {
  lat: number;
  lng: number;
  /** 0..1 */
  confidence: number;
  formattedAddress: string;
  precision: 'building' | 'street' | 'area' | null;
  provider: string;
}

/** POST /api/geocode: places for an address typed in the Fix form, best first. */
export interface GeocodeSearchResult {
  places: Array<{ lat: number; lng: number; confidence: number; formattedAddress: string; precision: 'building' | 'street' | 'area' }>;
}

export interface DeliveryDetail extends DeliverySummary {
  courierDeliveryId: string | null;
  courierOrderStatus: string | null;
  requestId: string | null;
  idempotencyKey: string | null;
  generation: number;
  tries: number;
  lastError: string | null;
  fulfillmentId: string | null;
  dispatchedAt: string | null;
  redacted: boolean;
  dropoff: {
    name: string | null;
    address1: string | null;
    address2: string | null;
    city: string | null;
    province: string | null;
    zip: string | null;
    countryCode: string | null;
    /** The phone the courier gets (E.164), the corrected one when set; the refused number while it is not valid. */
    phone: string | null;
    latitude: number | null;
    longitude: number | null;
  } | null;
  overrides: { phone?: string; latitude?: number; longitude?: number; name?: string; address1?: string; address2?: string; city?: string; email?: string; geocode?: GeocodeNote } | null;
  /** The geocoder's place for an address it was not sure of (NEEDS_ATTENTION geocode_low_confidence): "Use this location" fixes with its coordinates. */
  geocodeCandidate: GeocodeCandidateView | null;
  /** A geocoder is configured: the Fix form offers an address search (POST /api/geocode). */
  geocoder: boolean;
  request: unknown;
  response: unknown;
  requestText: string | null;
  responseText: string | null;
  timeline: TimelineEvent[];
}

export interface DeliveryList {
  deliveries: DeliverySummary[];
  nextCursor: string | null;
  counts: Record<string, number>;
  /** Courier events that match no delivery (web/fulfillment/unmatched.ts). */
  unmatchedEvents?: number;
  /** Deliveries the courier booked more than once, until marked resolved. */
  duplicateBookings?: number;
}

export interface ActionResult {
  message: string;
  delivery: DeliveryDetail;
}

export interface CheckResult {
  environment: Env;
  ok: boolean;
  message: string;
  testedAt: string;
}

export interface UnmatchedEvent {
  id: string;
  eventId: string;
  environment: string;
  type: string;
  deliveryRef: string | null;
  status: string | null;
  occurredAt: string | null;
  receivedAt: string;
  attempts: number;
  nextAttemptAt: string | null;
  triedIds: string[];
  lastError: string | null;
  raw: unknown;
}

/** POST /api/bulk (docs/bulk-actions.md): one action on up to 50 Shopify orders, by numeric id or GID. */
export type BulkAction = 'dispatch' | 'retry' | 'quote';

export interface BulkRequest {
  action: BulkAction;
  orderIds: string[];
}

export interface BulkOrderResult {
  /** The numeric Shopify order id. */
  orderId: string;
  outcome: 'ok' | 'refused' | 'not_found';
  /** Why it was refused (e.g. not_allowed, not_eligible, courier_rejected); null otherwise. */
  code: string | null;
  message: string;
  deliveryId: string | null;
  orderName: string | null;
  /** The delivery's status after the action; null when the app holds none. */
  status: string | null;
  /** Quote only: the courier's price, nothing booked. */
  quote: { environment: Env; price: string; currency: string | null; maxDeliveryPrice: string | null; aboveMax: boolean } | null;
}

export interface BulkResult {
  action: BulkAction;
  results: BulkOrderResult[];
  counts: { ok: number; refused: number; not_found: number };
}

/** The checkout rate's rules (web/settings/rates-schema.ts). */
export interface RatesSettings {
  enabled: boolean;
  serviceName: string;
  serviceCode: string;
  description: string;
  markupPercent: string;
  fixedFee: string;
  freeAbove: string | null;
  rounding: 'none' | 'up_whole' | 'nearest_whole' | 'up_99';
  maxDistanceKm: number | null;
  pickupLatitude: number | null;
  pickupLongitude: number | null;
  timeoutMs: number;
  fallbackRate: string | null;
  cacheMinutes: number;
  quotePhone: string | null;
}

/** GET /api/rates/status, POST /api/rates/sync: the checkout rate's setup (web/rates/carrier-service.ts). */
export interface RatesStatus {
  enabled: boolean;
  callbackUrl: string;
  scopes: { granted: boolean };
  plan: { name: string; support: 'yes' | 'maybe' | 'no' };
  carrierService: { id: string; name: string | null; callbackUrl: string | null; active: boolean } | null;
  problems: Array<{ code: 'missing_scope' | 'plan' | 'plan_unknown' | 'no_pickup_store' | 'create_refused' | 'no_quote_phone'; message: string }>;
}

/** GET /api/shop: what every page needs of the shop (dates and times are shown in its zone). */
export interface ShopInfo {
  shop: string;
  timeZone: string;
  timeZoneSource: 'shop' | 'fallback';
}

/** GET /api/dashboard: the home page's figures (web/admin/dashboard.ts). Days are YYYY-MM-DD in `timeZone`. */
export interface HomeDashboard {
  timeZone: string;
  /** 'shop': Shopify's Shop.ianaTimezone; 'fallback': Shopify did not say, UTC. */
  timeZoneSource: 'shop' | 'fallback';
  today: { date: string; bookings: number; spend: Array<{ currency: string; amount: string }> };
  /** The week starts on Monday. */
  week: { start: string; bookings: number; spend: Array<{ currency: string; amount: string }> };
  paidToDelivered: { medianSeconds: number | null; deliveries: number };
  /** Deliveries in NEEDS_ATTENTION or FAILED. */
  attention: number;
  unmatched: number;
  /** The last 14 days, oldest first, zero days included; delivered and problems are of that day's bookings. */
  days: Array<{ date: string; bookings: number; delivered: number; problems: number }>;
}

/** GET /api/flow: the Shopify Flow triggers and actions the app offers, and this shop's use of them (docs/flow.md). */
export interface FlowStatus {
  /** Shopify Flow in the admin (an App Bridge admin link). */
  flowUrl: string;
  triggers: Array<{
    handle: string;
    name: string;
    description: string;
    /** An enabled workflow uses it (Flow's lifecycle callback). */
    inUse: boolean;
    /** In the last 7 days. */
    sent: number;
    failed: number;
    lastFailure: string | null;
  }>;
  actions: Array<{ handle: string; name: string; description: string }>;
  /** The merchant's setting: triggers for deliveries on the courier's test environment too. */
  sendTestDeliveries: boolean;
}
