// extensions/flow-*: the toml files, the app's catalogue (web/flow/catalogue.ts)
// and Shopify's published rules agree. The rules are the CLI's (Shopify/cli
// packages/app/src/cli/models/extensions/specifications/flow_trigger.ts,
// flow_action.ts, services/flow/constants.ts, schemas.ts), checked here for
// every field; test/process/flow-extensions-cli.test.ts also runs the real CLI
// (`shopify app build`, offline) on them. The lifecycle callback's
// specification is served to the CLI by Shopify, so it is checked against
// shopify.dev ("Track Flow lifecycle events": type, name, handle, url).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { FLOW_ACTION_INFO, FLOW_ACTION_PATH, FLOW_LIFECYCLE_PATH, FLOW_TRIGGER_INFO } from '../../web/flow/catalogue.ts';
import { FLOW_TRIGGERS } from '../../web/lifecycle/machine.ts';
import { flowExtensions } from '../../dev/shop-sim/flow.ts';
import { ROOT } from '../support/paths.ts';

const CLI_DIST = join(ROOT, 'node_modules/@shopify/cli/dist');
// Shopify/cli services/flow/constants.ts: supportedTriggerTypes, TRIGGER_SUPPORTED_COMMERCE_OBJECTS, ACTION_SUPPORTED_COMMERCE_OBJECTS.
const TRIGGER_TYPES = ['boolean', 'email', 'single_line_text_field', 'url', 'number_decimal'];
const TRIGGER_REFERENCES = ['customer_reference', 'order_reference', 'product_reference', 'company_reference', 'company_contact_reference'];
const ACTION_REFERENCES = ['customer_reference', 'order_reference', 'product_reference', 'marketing_activity_reference', 'abandonment_reference', 'company_reference', 'company_contact_reference'];
// schemas.ts HandleSchema (the CLI allows 50; shopify.dev's trigger reference says at most 30).
const HANDLE = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,28}[a-zA-Z0-9])?$/;
// flow_trigger.ts FlowTriggerSettingsSchema: a trigger field key is letters and spaces.
const TRIGGER_KEY = /^[a-zA-Z\s]*$/;

const dirs = ['flow-delivery-booked', 'flow-delivery-needs-attention', 'flow-delivery-courier-failed', 'flow-delivery-delivered', 'flow-dispatch-order', 'flow-redispatch-order', 'flow-trigger-lifecycle'];
const tomls = dirs.map((d) => ({ dir: d, toml: parse(readFileSync(join(ROOT, 'extensions', d, 'shopify.extension.toml'), 'utf8')) as any }));
const all = tomls.flatMap(({ dir, toml }) => (toml.extensions as any[]).map((e) => ({ dir, e, fields: (toml.settings?.fields ?? []) as any[] })));

describe('Flow extensions', () => {
  it('the installed CLI still has the rules this test copies', () => {
    // A CLI upgrade that changes them fails here: read its bundle and update the constants above.
    const bundle = readdirSync(CLI_DIST).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(CLI_DIST, f), 'utf8')).find((t) => t.includes('identifier:"flow_trigger"')) ?? '';
    expect(bundle).toContain('String must contain only alphabetic characters and spaces');
    expect(bundle).toContain('identifier:"flow_trigger"');
  });

  it('one extension per folder; handles unique and within Shopify\'s rules', () => {
    expect(all.map((x) => x.dir)).toEqual(dirs);
    const handles = all.map((x) => x.e.handle);
    expect(new Set(handles).size).toBe(handles.length);
    for (const h of handles) expect(h, h).toMatch(HANDLE);
  });

  it('triggers: the catalogue\'s handles, names and field keys, with types Flow accepts for triggers, and an order reference', () => {
    const triggers = all.filter((x) => x.e.type === 'flow_trigger');
    expect(triggers.map((x) => x.e.handle).sort()).toEqual([...FLOW_TRIGGERS].sort());
    for (const { e, fields } of triggers) {
      const info = FLOW_TRIGGER_INFO.find((t) => t.handle === e.handle)!;
      expect({ name: e.name, description: e.description }).toEqual({ name: info.name, description: info.description });
      expect(fields[0]).toEqual({ type: 'order_reference' });
      const rest = fields.slice(1);
      expect(rest.map((f) => f.key)).toEqual(info.fields);
      for (const f of rest) {
        expect(TRIGGER_TYPES, `${e.handle}: ${f.key}`).toContain(f.type);
        expect(f.key, `${e.handle}: ${f.key}`).toMatch(TRIGGER_KEY);
        expect(Object.keys(f).sort()).toEqual(['description', 'key', 'type']);
      }
      for (const f of fields.filter((x) => x.type.endsWith('_reference'))) expect(TRIGGER_REFERENCES).toContain(f.type);
    }
  });

  it('actions: the catalogue\'s, at our runtime URL (relative to application_url), with a required order reference', () => {
    const actions = all.filter((x) => x.e.type === 'flow_action');
    expect(actions.map((x) => ({ handle: x.e.handle, name: x.e.name, description: x.e.description }))).toEqual(FLOW_ACTION_INFO.map(({ handle, name, description }) => ({ handle, name, description })));
    for (const { e, fields } of actions) {
      expect(e.runtime_url).toBe(FLOW_ACTION_PATH);
      expect(fields).toEqual([{ type: 'order_reference', required: true }]);
      expect(ACTION_REFERENCES).toContain(fields[0].type);
    }
  });

  it('the lifecycle callback: type, name, handle and url, at our route', () => {
    const cb = all.filter((x) => x.e.type === 'flow_trigger_lifecycle_callback');
    expect(cb).toHaveLength(1);
    expect(Object.keys(cb[0]!.e).sort()).toEqual(['handle', 'name', 'type', 'url']);
    expect(cb[0]!.e.url).toBe(FLOW_LIFECYCLE_PATH);
  });

  it('the simulator reads the same extensions', () => {
    const sim = flowExtensions();
    expect([...sim.keys()].sort()).toEqual(all.map((x) => x.e.handle).sort());
  });
});
