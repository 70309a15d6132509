// customers/data_request records (web/webhooks/lifecycle.ts writes them): the
// merchant lists them and exports the report, from the admin (/api/data-requests)
// and the CLI (`data-requests`). Reports are encrypted at rest (web/db/protected-data.ts).
import type { Db } from '../db/client.ts';
import { readReport } from '../db/json-columns.ts';

export interface DataRequestSummary {
  id: string;
  dataRequestId: string | null;
  customerId: string | null;
  deliveries: number;
  receivedAt: string;
  exportedAt: string | null;
}

export class DataRequestNotFound extends Error {}

export async function listDataRequests(db: Db, shopDomain: string): Promise<DataRequestSummary[]> {
  const rows = await db.dataRequest.findMany({ where: { shop: { domain: shopDomain } }, orderBy: { receivedAt: 'desc' }, take: 200 });
  return rows.map((r) => ({
    id: r.id,
    dataRequestId: r.dataRequestId,
    customerId: r.customerId,
    deliveries: readReport(r).deliveries?.length ?? 0,
    receivedAt: r.receivedAt.toISOString(),
    exportedAt: r.exportedAt?.toISOString() ?? null,
  }));
}

/** The full report, for the merchant to send to the customer; records when it was first exported. */
export async function exportDataRequest(db: Db, shopDomain: string, id: string): Promise<{ id: string; receivedAt: string; report: unknown }> {
  const row = await db.dataRequest.findFirst({ where: { id, shop: { domain: shopDomain } } });
  if (!row) throw new DataRequestNotFound(`data request ${id} not found`);
  if (!row.exportedAt) await db.dataRequest.update({ where: { id: row.id }, data: { exportedAt: new Date() }, select: { id: true } });
  return { id: row.id, receivedAt: row.receivedAt.toISOString(), report: readReport(row) };
}
