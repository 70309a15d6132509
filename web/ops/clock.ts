// The app's one clock (AppContext.now reads it). Production always uses the system
// clock; development tools (dev/start.ts) may install a movable one so the delivery
// windows can be shown at another time of day (docs/delivery-windows.md).
export interface Clock {
  now(): number;
  /**
   * Called after the clock jumped (a moved development clock): due work is looked at again. Returns the
   * unsubscribe: a runtime that is closed must not be woken (its database is closed, and a query would open it again).
   */
  onJump?(listener: () => void): () => void;
}

export const systemClock: Clock = { now: () => Date.now() };

let installed: Clock | null = null;

export class ClockRefusedError extends Error {}

/** Development only: every runtime created afterwards reads this clock. */
export function installClock(clock: Clock, nodeEnv: string | undefined = process.env.NODE_ENV): void {
  if (nodeEnv === 'production') throw new ClockRefusedError('a moved clock is for development only; production uses the system clock');
  installed = clock === systemClock ? null : clock;
}

export function appClock(nodeEnv: string | undefined = process.env.NODE_ENV): Clock {
  if (installed && nodeEnv === 'production') throw new ClockRefusedError('a moved clock is installed in production; refusing to start');
  return installed ?? systemClock;
}
