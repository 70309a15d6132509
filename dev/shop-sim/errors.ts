// A control or Shopify-facing request that cannot be served: its status and a message naming
// what is wrong (the router answers it as JSON).
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

// JSON bodies: integers beyond 2^53 would be silently rounded; refuse them instead.
export function parseJson(text: string, what: string): any {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text, ((key: string, value: unknown, ctx?: { source?: string }) => {
      if (typeof value === 'number' && !Number.isSafeInteger(value) && ctx?.source && /^-?\d+$/.test(ctx.source)) {
        throw new HttpError(400, `${what}: the integer ${ctx.source} at "${key}" is too large for a JSON number; use an id below 2^53 or a string`);
      }
      return value;
    }) as (key: string, value: unknown) => unknown);
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError(400, `${what} is not valid JSON: ${(e as Error).message}`);
  }
}
