// The connect window. A call that reaches no server (refused, not resolved) never got to one,
// so any call may be sent again: for `connectTimeoutMs` counted from its first such failure,
// which finds a restarting server again, then it fails with an Unavailable naming the endpoint
// and the cause instead of waiting for its deadline.
import { connectFailure, expiredUnsent, NO_CONNECTION, unreachable } from './errors';

export interface ConnectPolicy {
  readonly endpoint: string;
  readonly connectTimeoutMs: number;
}

export class ConnectWindow {
  readonly #policy: ConnectPolicy;
  readonly #deadline: number;
  #end: number | undefined;
  #cause = NO_CONNECTION; // the most telling cause seen in this window

  /** `deadline` (ms since the epoch) ends the window early: no call outlives its deadline. */
  constructor(policy: ConnectPolicy, deadline = Infinity) {
    this.#policy = policy;
    this.#deadline = deadline;
  }

  /**
   * For a call that reached no server: how long to wait before sending it again (the last try
   * lands at the end of the window); throws the Unavailable naming the endpoint once the
   * window is over. Undefined for a failure a server may have seen.
   */
  pause(error: unknown, delayMs: number): number | undefined {
    const cause = connectFailure(error);
    if (cause === undefined) {
      if (this.#end !== undefined && expiredUnsent(error)) {
        // The deadline ended a try after the server was already found away: the same answer
        // as when no time is left for another try, whichever timer fired first.
        throw unreachable(this.#policy.endpoint, this.#cause, error);
      }
      return undefined;
    }
    if (cause !== NO_CONNECTION) {
      this.#cause = cause;
    }
    const now = Date.now();
    this.#end ??= now + this.#policy.connectTimeoutMs;
    const waitMs = Math.min(delayMs, this.#end - now);
    if (now >= this.#end || now + waitMs >= this.#deadline) {
      throw unreachable(this.#policy.endpoint, this.#cause, error); // no time left to try again
    }
    return waitMs;
  }
}
