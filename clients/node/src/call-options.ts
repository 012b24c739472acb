/** Per-call settings; each overrides the client's default for this call only. */
export interface CallOptions {
  /**
   * Time for the whole call, read retries included; a write whose answer was lost is sent
   * again with a deadline of its own (see Retries). Default: the client's deadlineMs.
   */
  readonly deadlineMs?: number;
  /** Cancels the call (it then fails with the signal's reason). */
  readonly signal?: AbortSignal;
  /** Extra request metadata (ASCII keys; `-bin` keys take Buffers in grpc-js only). */
  readonly metadata?: Readonly<Record<string, string>>;
}
