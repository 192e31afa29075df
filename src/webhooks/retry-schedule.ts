/**
 * Base delays before attempts 2, 3, …: index i is the wait after attempt i + 1 fails. Exponential
 * at first (a receiver that restarts is back within minutes), then spread so the whole schedule
 * covers about a day (a receiver that is down overnight still gets the notification).
 */
export const retryBaseDelaysMs: readonly number[] = [
  60_000, // 1 minute
  5 * 60_000, // 5 minutes
  30 * 60_000, // 30 minutes
  2 * 3_600_000, // 2 hours
  5 * 3_600_000, // 5 hours
  10 * 3_600_000, // 10 hours
  10 * 3_600_000, // 10 hours
];

/** Attempts per notification, the first included; after the last one the delivery has failed. */
export const maxDeliveryAttempts: number = retryBaseDelaysMs.length + 1;

/**
 * Each delay is its base delay times a factor drawn from [1 − jitter, 1 + jitter), so receivers
 * that failed together (one outage) are not all retried in the same second.
 */
export const retryJitter = 0.2;

/** The longest wait a Retry-After header can impose; a receiver asking for more is retried after this. */
export const maxRetryAfterMs = 24 * 3_600_000;

/** Properties of {@link retryDelayMs}. */
export interface RetryDelayProps {
  /** The attempt that just failed, 1-based. */
  attempt: number;
  /** What the receiver's Retry-After asked for, in milliseconds, or null. */
  retryAfterMs: number | null;
  /** Source of jitter in [0, 1); Math.random unless a test fixes it. */
  random?: () => number;
}

/**
 * How long to wait before the attempt after `attempt`, or null when `attempt` was the last one.
 * Never earlier than Retry-After asks (capped at {@link maxRetryAfterMs}).
 * Throws RangeError for an attempt that is not a positive whole number.
 */
export function retryDelayMs(props: RetryDelayProps): number | null {
  const { attempt, retryAfterMs } = props;
  if (!Number.isSafeInteger(attempt) || attempt < 1) throw new RangeError(`attempt is counted from 1, not ${attempt}`);
  if (attempt >= maxDeliveryAttempts) return null;
  const random = Math.min(Math.max((props.random ?? Math.random)(), 0), 1);
  const jittered = Math.round(retryBaseDelaysMs[attempt - 1]! * (1 - retryJitter + 2 * retryJitter * random));
  const asked = retryAfterMs !== null && Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? Math.min(Math.ceil(retryAfterMs), maxRetryAfterMs) : 0;
  return Math.max(jittered, asked);
}
