// Shopify's calculated query cost and its leaky bucket, as shopify.dev documents them
// ("GraphQL Admin API rate limits", docs/shopify-rate-limits.md):
// - a field returning a scalar or an enum costs 0, an object 1;
// - a connection costs 2 plus `first` (or `last`) times the cost of one of its nodes;
//   a list with a `first` argument costs `first` times one element;
// - an interface or union costs the most expensive of its selections;
// - a mutation field costs 10;
// - the requested cost (the worst case) is taken from the bucket before the query runs,
//   and the difference to the actual cost (what was returned) is given back after;
// - a query whose requested cost exceeds 1,000 is refused with MAX_COST_EXCEEDED;
// - a bucket per app and shop, its size and restore rate by plan.
// Pure apart from the injected clock.
import {
  getNamedType, isAbstractType, isLeafType, isListType, isNonNullType, isObjectType, Kind, parse,
  type FieldNode, type GraphQLField, type GraphQLOutputType, type GraphQLSchema, type OperationDefinitionNode,
  type SelectionSetNode, type GraphQLNamedType, type FragmentDefinitionNode, valueFromASTUntyped,
} from 'graphql';

export const MAX_QUERY_COST = 1000;
export const MUTATION_COST = 10;

/** Restore rate per plan (shopify.dev); the bucket holds 20 seconds of it, as Shopify's throttleStatus reports (2,000 at 100/s). */
export const PLANS = {
  standard: { restoreRate: 100, maximumAvailable: 2000 },
  advanced: { restoreRate: 200, maximumAvailable: 4000 },
  plus: { restoreRate: 1000, maximumAvailable: 20000 },
  enterprise: { restoreRate: 2000, maximumAvailable: 40000 },
} as const;
export type PlanName = keyof typeof PLANS;
export interface BucketLimits { restoreRate: number; maximumAvailable: number }

export interface ThrottleStatus { maximumAvailable: number; currentlyAvailable: number; restoreRate: number }
export interface CostExtension { requestedQueryCost: number; actualQueryCost: number | null; throttleStatus: ThrottleStatus }

interface Ctx {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

const unwrap = (t: GraphQLOutputType): GraphQLOutputType => (isNonNullType(t) ? (t.ofType as GraphQLOutputType) : t);
const isConnection = (t: GraphQLNamedType) => isObjectType(t) && t.name.endsWith('Connection');

function sizeArg(node: FieldNode, ctx: Ctx): number | null {
  for (const name of ['first', 'last']) {
    const a = node.arguments?.find((x) => x.name.value === name);
    if (!a) continue;
    const v = valueFromASTUntyped(a.value, ctx.variables);
    if (typeof v === 'number') return v;
  }
  return null;
}

/** The fields a selection set selects on `type`, fragments spread; fragments on other types listed apart (an interface's or union's possible types). */
function fieldsOf(set: SelectionSetNode | undefined, typeName: string, ctx: Ctx, out: { common: FieldNode[]; byType: Map<string, FieldNode[]> } = { common: [], byType: new Map() }) {
  for (const s of set?.selections ?? []) {
    if (s.kind === Kind.FIELD) out.common.push(s);
    else {
      const frag = s.kind === Kind.FRAGMENT_SPREAD ? ctx.fragments.get(s.name.value) : s;
      if (!frag) continue;
      const on = frag.typeCondition?.name.value;
      if (!on || on === typeName) fieldsOf(frag.selectionSet, typeName, ctx, out);
      else {
        const inner = fieldsOf(frag.selectionSet, on, ctx);
        out.byType.set(on, [...(out.byType.get(on) ?? []), ...inner.common]);
      }
    }
  }
  return out;
}

function fieldDef(type: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
  return 'getFields' in type ? (type.getFields() as Record<string, GraphQLField<unknown, unknown>>)[name] : undefined;
}

/** Cost of one value of `type` with this selection (the object itself included). */
function objectCost(type: GraphQLNamedType, set: SelectionSetNode | undefined, ctx: Ctx): number {
  const { common, byType } = fieldsOf(set, type.name, ctx);
  const own = sum(common.map((f) => fieldCost(type, f, ctx)));
  const branches = [...byType.entries()].map(([t, fs]) => {
    const branchType = ctx.schema.getType(t);
    return branchType ? sum(fs.map((f) => fieldCost(branchType, f, ctx))) : 0;
  });
  return 1 + own + (branches.length ? Math.max(...branches) : 0);
}

function fieldCost(parent: GraphQLNamedType, node: FieldNode, ctx: Ctx): number {
  if (node.name.value === '__typename') return 0;
  const def = fieldDef(parent, node.name.value);
  if (!def) return 0;
  const bare = unwrap(def.type);
  const named = getNamedType(bare);
  if (isLeafType(named)) return 0;
  const n = sizeArg(node, ctx);
  if (isConnection(named)) return 2 + (n ?? 1) * connectionNodeCost(named, node.selectionSet, ctx);
  const one = isAbstractType(named) ? objectCost(named, node.selectionSet, ctx) : objectCost(named, node.selectionSet, ctx);
  return isListType(bare) ? (n ?? 1) * one : one;
}

/** One node of a connection: what `nodes` or `edges { node }` select on it (edges and pageInfo cost nothing extra). */
function connectionNodeCost(conn: GraphQLNamedType, set: SelectionSetNode | undefined, ctx: Ctx): number {
  let cost = 0;
  for (const f of fieldsOf(set, conn.name, ctx).common) {
    const def = fieldDef(conn, f.name.value);
    if (!def) continue;
    const named = getNamedType(def.type);
    if (f.name.value === 'nodes') cost += objectCost(named, f.selectionSet, ctx);
    else if (f.name.value === 'edges') {
      for (const e of fieldsOf(f.selectionSet, named.name, ctx).common) {
        const ed = fieldDef(named, e.name.value);
        if (e.name.value === 'node' && ed) cost += objectCost(getNamedType(ed.type), e.selectionSet, ctx);
      }
    }
  }
  return cost;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function operationOf(query: string, operationName?: string) {
  const doc = parse(query);
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
  const fragments = new Map(doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  return { op, fragments };
}

/** The requested (worst-case) cost of an operation Shopify has validated. */
export function requestedCost(schema: GraphQLSchema, query: string, variables: Record<string, unknown> = {}, operationName?: string): number {
  const { op, fragments } = operationOf(query, operationName);
  if (!op) return 0;
  const ctx: Ctx = { schema, fragments, variables };
  const root = op.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!root) return 0;
  const fields = fieldsOf(op.selectionSet, root.name, ctx).common;
  if (op.operation === 'mutation') return fields.filter((f) => f.name.value !== '__typename').length * MUTATION_COST;
  return sum(fields.map((f) => fieldCost(root, f, ctx)));
}

/** The actual cost: the same rules over what the answer holds (a null object costs nothing; a connection its real nodes). */
export function actualCost(schema: GraphQLSchema, query: string, data: unknown, variables: Record<string, unknown> = {}, operationName?: string): number {
  const { op, fragments } = operationOf(query, operationName);
  if (!op || !data || typeof data !== 'object') return 0;
  const ctx: Ctx = { schema, fragments, variables };
  const root = op.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!root) return 0;
  const fields = fieldsOf(op.selectionSet, root.name, ctx).common;
  if (op.operation === 'mutation') return fields.filter((f) => f.name.value !== '__typename').length * MUTATION_COST;
  return sum(fields.map((f) => actualField(root, f, (data as Record<string, unknown>)[(f.alias ?? f.name).value], ctx)));
}

function actualField(parent: GraphQLNamedType, node: FieldNode, value: unknown, ctx: Ctx): number {
  const def = fieldDef(parent, node.name.value);
  if (!def || value === null || value === undefined) return 0;
  const named = getNamedType(def.type);
  if (isLeafType(named)) return 0;
  if (isConnection(named)) {
    const v = value as { nodes?: unknown[]; edges?: Array<{ node?: unknown }> };
    const nodes = v.nodes ?? v.edges?.map((e) => e.node) ?? [];
    const nodeSel = fieldsOf(node.selectionSet, named.name, ctx).common;
    const nodeType = getNamedType(fieldDef(named, 'nodes')?.type ?? def.type);
    const sel = nodeSel.find((f) => f.name.value === 'nodes')?.selectionSet
      ?? fieldsOf(nodeSel.find((f) => f.name.value === 'edges')?.selectionSet, '', ctx).common.find((f) => f.name.value === 'node')?.selectionSet;
    return 2 + sum(nodes.map((n) => actualObject(nodeType, sel, n, ctx)));
  }
  if (Array.isArray(value)) return sum(value.map((v) => actualObject(named, node.selectionSet, v, ctx)));
  return actualObject(named, node.selectionSet, value, ctx);
}

function actualObject(type: GraphQLNamedType, set: SelectionSetNode | undefined, value: unknown, ctx: Ctx): number {
  if (!value || typeof value !== 'object') return 0;
  const concrete = isAbstractType(type) ? (ctx.schema.getType(String((value as Record<string, unknown>).__typename ?? '')) ?? type) : type;
  const { common, byType } = fieldsOf(set, concrete.name, ctx);
  const fields = [...common, ...(byType.get(concrete.name) ?? [])];
  return 1 + sum(fields.map((f) => actualField(concrete, f, (value as Record<string, unknown>)[(f.alias ?? f.name).value], ctx)));
}

/**
 * One app's bucket on one shop. `available` is as of `at`; it refills at
 * restoreRate points per second up to maximumAvailable. Counts what tests and
 * benchmarks read: points spent (actual), THROTTLED answers, the deepest overdraw asked for.
 */
export class CostBucket {
  limits: BucketLimits;
  available: number;
  at: number;
  readonly now: () => number;
  spent = 0;
  throttled = 0;
  /** The most any request asked beyond what the bucket held (0: never). */
  deepestOverdraw = 0;
  /**
   * The bucket as if Shopify had run every call the app sent: refused ones are taken too.
   * Its lowest point is how far the app's own pacing overdrew the bucket (a client that
   * sends only what the bucket can pay keeps it above minus one call's cost).
   */
  demand: number;
  lowestDemand: number;

  constructor(limits: BucketLimits, now: () => number = Date.now) {
    this.limits = { ...limits };
    this.now = now;
    this.available = limits.maximumAvailable;
    this.demand = limits.maximumAvailable;
    this.lowestDemand = this.demand;
    this.at = now();
  }

  setLimits(limits: BucketLimits): void {
    this.refill();
    this.limits = { ...limits };
    this.available = Math.min(this.available, limits.maximumAvailable);
    this.demand = Math.min(this.demand, limits.maximumAvailable);
    this.lowestDemand = this.demand;
  }

  refill(): number {
    const t = this.now();
    const restored = ((t - this.at) / 1000) * this.limits.restoreRate;
    this.available = Math.min(this.limits.maximumAvailable, this.available + restored);
    this.demand = Math.min(this.limits.maximumAvailable, this.demand + restored);
    this.at = t;
    return this.available;
  }

  /** Takes the requested cost if the bucket can pay it; false = THROTTLED (nothing taken). */
  take(requested: number): boolean {
    this.refill();
    this.demand -= requested;
    this.lowestDemand = Math.min(this.lowestDemand, this.demand);
    if (requested > this.available) {
      this.deepestOverdraw = Math.max(this.deepestOverdraw, requested - this.available);
      this.throttled += 1;
      return false;
    }
    this.available -= requested;
    return true;
  }

  /** After the query ran: the difference between requested and actual comes back. */
  refund(requested: number, actual: number): void {
    this.available = Math.min(this.limits.maximumAvailable, this.available + Math.max(0, requested - actual));
    this.demand = Math.min(this.limits.maximumAvailable, this.demand + Math.max(0, requested - actual));
    this.spent += actual;
  }

  status(): ThrottleStatus {
    this.refill();
    // Shopify reports whole points as floats (e.g. 1990.0); rounded down so a client never plans on points that are not there.
    return { maximumAvailable: this.limits.maximumAvailable, currentlyAvailable: Math.floor(this.available), restoreRate: this.limits.restoreRate };
  }
}

export function planLimits(plan: string): BucketLimits {
  const p = PLANS[plan as PlanName];
  if (!p) throw new Error(`plan must be one of ${Object.keys(PLANS).join(', ')}`);
  return { ...p };
}

export type { GraphQLSchema };
