// The admin API's response shapes: one source, shared with the server.
export type * from '../../admin/contract.ts';
