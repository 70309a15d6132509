// The CLI's commands. Each parses its own arguments (node:util parseArgs) and
// works through the same services as the app and the admin API
// (web/admin/services, web/dispatch/service.ts, web/settings/store.ts).
import type { Command } from './args.ts';
import { DELIVERY_COMMANDS } from './delivery-commands.ts';
import { EVENT_COMMANDS } from './event-commands.ts';
import { SETTINGS_COMMANDS } from './settings-commands.ts';
import { BULK_COMMANDS } from './bulk-commands.ts';

export { CliError } from './errors.ts';

const { shops, show, configure, 'test-connection': testConnection, 'test-webhook': testWebhook, 'rotate-key': rotateKey } = SETTINGS_COMMANDS;
const { deliveries, delivery, dispatch, retry, fix, redispatch, reconcile } = DELIVERY_COMMANDS;
const { 'data-requests': dataRequests, inbox, unmatched, attach, dismiss, resolve } = EVENT_COMMANDS;

/** In the order `help` lists them. */
export const COMMANDS: Record<string, Command> = {
  shops: shops!,
  show: show!,
  configure: configure!,
  deliveries: deliveries!,
  'data-requests': dataRequests!,
  delivery: delivery!,
  dispatch: dispatch!,
  retry: retry!,
  fix: fix!,
  redispatch: redispatch!,
  'test-connection': testConnection!,
  'test-webhook': testWebhook!,
  reconcile: reconcile!,
  inbox: inbox!,
  unmatched: unmatched!,
  attach: attach!,
  dismiss: dismiss!,
  resolve: resolve!,
  'rotate-key': rotateKey!,
  bulk: BULK_COMMANDS.bulk!,
};

export function usage(): string {
  const lines = ['Same-Day Dispatch operator CLI: npm run cli -- <command> [options]   (--json for machine output)', ''];
  for (const c of Object.values(COMMANDS)) lines.push(`  ${c.usage.split('\n')[0]!.padEnd(52)} ${c.summary}`);
  lines.push('', 'Run `npm run cli -- <command> --help` for a command\'s options.', '');
  return lines.join('\n');
}
