// The in-process retry loop of the HTTP clients (courier, Shopify Admin). The
// decisions are policy.ts's; this file only sleeps and counts.
import { nextRetry, type HttpRetryPolicy } from './policy.ts';

/** A failed attempt worth retrying. Thrown inside an attempt; withRetries turns it into the caller's error. */
export class RetrySignal {
  readonly problem: string;
  readonly status?: number;
  readonly body?: string;
  readonly retryAfterMs?: number;
  readonly cause?: unknown;
  /** The request was sent and no answer came: the service may have acted on it. */
  readonly sent?: boolean;
  /** The service answered with a retryable status: it had the request and refused it. */
  readonly answered?: boolean;
  constructor(problem: string, opts: { status?: number; body?: string; retryAfterMs?: number; cause?: unknown; sent?: boolean; answered?: boolean } = {}) {
    this.problem = problem;
    for (const [k, v] of Object.entries(opts)) if (v !== undefined) (this as Record<string, unknown>)[k] = v;
  }
}

/**
 * Which failures of a call the client itself retries: `any`; `unsent`, only those
 * whose request provably never reached the service (refused connection, a failed
 * token request), because the call's real retries belong to another layer; `never`.
 */
export type RetryScope = 'any' | 'unsent' | 'never';

export function mayRetry(scope: RetryScope, s: RetrySignal): boolean {
  return scope === 'any' || (scope === 'unsent' && !s.sent && !s.answered);
}

export type GiveUpReason = 'attempts_exhausted' | 'deadline_exhausted' | 'not_retried';

export interface RetryLoop {
  policy: HttpRetryPolicy;
  /** Per-attempt timeout, shortened to what is left of the deadline. */
  requestTimeoutMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

export interface RetryHooks {
  /** Sees every signal first; may throw its own error instead of a retry. */
  check?: (s: RetrySignal, attempt: number) => void;
  /** The error thrown when the loop stops. */
  giveUp: (s: RetrySignal, attempt: number, reason: GiveUpReason) => Error;
  retrying?: (s: RetrySignal, attempt: number, delayMs: number) => void;
}

export async function withRetries<T>(loop: RetryLoop, scope: RetryScope, attemptFn: (timeoutMs: number, attempt: number) => Promise<T>, hooks: RetryHooks): Promise<T> {
  const started = loop.now();
  for (let attempt = 1; ; attempt++) {
    const remaining = loop.policy.deadlineMs - (loop.now() - started);
    try {
      if (remaining <= 0) throw new RetrySignal('the overall deadline passed');
      return await attemptFn(Math.max(1, Math.min(loop.requestTimeoutMs, remaining)), attempt);
    } catch (e) {
      if (!(e instanceof RetrySignal)) throw e;
      hooks.check?.(e, attempt);
      const decision = mayRetry(scope, e)
        ? nextRetry({ attempt, elapsedMs: loop.now() - started, retryAfterMs: e.retryAfterMs, policy: loop.policy, random: loop.random })
        : ({ retry: false, reason: 'not_retried' } as const);
      if (!decision.retry) throw hooks.giveUp(e, attempt, decision.reason);
      hooks.retrying?.(e, attempt, decision.delayMs);
      await loop.sleep(decision.delayMs);
    }
  }
}
