// Shopify ids exceed 2^53, so JSON.parse would round them. This parser keeps
// every integer under an `id` or `*_id` key as its exact source text, and any
// integer too large for a double (e.g. inside `orders_to_redact`) likewise.
// Node 22's reviver receives the number's source text.
const ID_KEY = /(^|_)id$/;

export function parseShopifyJson(text: string): unknown {
  return JSON.parse(text, ((key: string, value: unknown, ctx?: { source?: string }) => {
    if (typeof value === 'number' && ctx?.source && /^-?\d+$/.test(ctx.source)) {
      if (ID_KEY.test(key) || !Number.isSafeInteger(value)) return ctx.source;
    }
    return value;
  }) as (key: string, value: unknown) => unknown);
}
