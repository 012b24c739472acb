// Channel credentials and per-call metadata: the hooks the later security feature needs (TLS,
// mTLS, bearer tokens) are already wired, so enabling them is configuration, not code.
import { credentials, Metadata, type ChannelCredentials } from '@grpc/grpc-js';

import type { TlsMaterial, TokenSource } from './config';

export function channelCredentials(tls: TlsMaterial | undefined): ChannelCredentials {
  if (tls === undefined) {
    return credentials.createInsecure();
  }
  return credentials.createSsl(tls.ca ?? null, tls.key ?? null, tls.cert ?? null);
}

/**
 * Metadata for one call: the bearer token (if any) plus the caller's own entries. The token
 * goes in plain metadata rather than grpc-js call credentials because those refuse plaintext
 * channels, and a loopback server without TLS must still be able to check a token.
 */
export async function callMetadata(
  token: TokenSource | undefined,
  extra: Readonly<Record<string, string>> | undefined,
): Promise<Metadata> {
  // No call waits for a connection: one that reaches no server fails at once with grpc-js's
  // cause, and the connect window (connect.ts) decides whether to send it again.
  const metadata = new Metadata({ waitForReady: false });
  for (const [key, value] of Object.entries(extra ?? {})) {
    metadata.set(key, value);
  }
  const current = typeof token === 'function' ? await token() : token;
  if (current) {
    metadata.set('authorization', `Bearer ${current}`);
  }
  return metadata;
}
