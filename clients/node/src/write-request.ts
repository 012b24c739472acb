// The writes update() can make: which one a change asks for is said by its single key, since
// plain request objects do not carry their type.
import type * as pb from './types';

export type WriteRequest =
  | { readonly remember: Omit<pb.RememberRequest, 'memory'> }
  | { readonly forget: Omit<pb.ForgetRequest, 'memory'> }
  | { readonly reactivate: Omit<pb.ReactivateRequest, 'memory'> }
  | { readonly organize: Omit<pb.OrganizeRequest, 'memory'> };

/** What every write returns: the new revision (or the unchanged head) and its changes. */
export type WriteResponse =
  pb.RememberResponse | pb.ForgetResponse | pb.ReactivateResponse | pb.OrganizeResponse;

/**
 * Builds the write for the head it is given, or returns undefined when there is nothing to do.
 * It may run several times (once per lost race), so it must have no side effects.
 */
export type Change = (
  head: pb.GetMemoryResponse,
) => WriteRequest | undefined | Promise<WriteRequest | undefined>;
