// Compile-time only (never imported): the services' answers, as JSON, must be
// the shapes the pages read (./contract.ts). `npm run typecheck` fails when a
// service and the contract drift apart.
import type { listUnmatched } from '../fulfillment/unmatched.ts';
import type * as C from './contract.ts';
import type { checkNow } from '../dispatch/actions.ts';
import type { deliveryDetail } from './services/delivery.ts';
import type { searchAddress } from './services/geocode.ts';
import type { homeDashboard } from './services/dashboard.ts';
import type { listDeliveries } from './services/deliveries.ts';
import type { runBulk } from './services/bulk.ts';
import type { settingsPayload, shopLocations, testConnection, testWebhook } from './services/settings.ts';
import type { ratesStatus, syncCarrierService } from '../rates/carrier-service.ts';
import type { flowStatus } from './services/flow.ts';

/** What JSON.stringify makes of a value: dates become strings. */
type Json<T> = T extends Date ? string : T extends readonly (infer U)[] ? Json<U>[] : T extends object ? { [K in keyof T]: Json<T[K]> } : T;
type Answer<F extends (...args: any) => Promise<unknown>> = Json<Awaited<ReturnType<F>>>;
type Is<A extends B, B> = [A, B];

export type Checked = [
  Is<Answer<typeof settingsPayload>, C.SettingsPayload>,
  Is<Answer<typeof ratesStatus>, C.RatesStatus>,
  Is<Answer<typeof syncCarrierService>, C.RatesStatus>,
  Is<Answer<typeof shopLocations>, { locations: C.ShopLocation[] }>,
  Is<Answer<typeof testConnection>, C.CheckResult>,
  Is<Answer<typeof testWebhook>, C.CheckResult>,
  Is<Answer<typeof listDeliveries>, C.DeliveryList>,
  Is<{ message: string; delivery: Answer<typeof deliveryDetail> }, C.ActionResult>,
  Is<{ message: string; delivery: Answer<typeof deliveryDetail> } & Pick<Answer<typeof checkNow>, 'result'>, C.ActionResult>,
  Is<Answer<typeof listUnmatched>['events'][number], C.UnmatchedEvent>,
  Is<Answer<typeof searchAddress>, C.GeocodeSearchResult>,
  Is<Answer<typeof runBulk>, C.BulkResult>,
  Is<Answer<typeof homeDashboard>, C.HomeDashboard>,
  Is<Answer<typeof flowStatus>, C.FlowStatus>,
];
