// Decodes the google.rpc.Status that the server puts in the `grpc-status-details-bin` trailer.
// The four google.rpc messages are declared here with protobuf.js (field numbers from
// google/rpc/status.proto and error_details.proto): that avoids depending on a large package
// of Google API protos for four small messages.
import * as protobuf from 'protobufjs';

export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
const TYPE_URL_PREFIX = 'type.googleapis.com/';

const GOOGLE_RPC_SCHEMA = {
  nested: {
    google: {
      nested: {
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: 'int32', id: 1 },
                message: { type: 'string', id: 2 },
                details: { rule: 'repeated', type: 'Any', id: 3 },
              },
            },
            // google.protobuf.Any, kept local so protobuf.js applies none of its Any special cases.
            Any: {
              fields: {
                typeUrl: { type: 'string', id: 1 },
                value: { type: 'bytes', id: 2 },
              },
            },
            ErrorInfo: {
              fields: {
                reason: { type: 'string', id: 1 },
                domain: { type: 'string', id: 2 },
                metadata: { keyType: 'string', type: 'string', id: 3 },
              },
            },
            BadRequest: {
              fields: {
                fieldViolations: { rule: 'repeated', type: 'FieldViolation', id: 1 },
              },
              nested: {
                FieldViolation: {
                  fields: {
                    field: { type: 'string', id: 1 },
                    description: { type: 'string', id: 2 },
                  },
                },
              },
            },
            PreconditionFailure: {
              fields: {
                violations: { rule: 'repeated', type: 'Violation', id: 1 },
              },
              nested: {
                Violation: {
                  fields: {
                    type: { type: 'string', id: 1 },
                    subject: { type: 'string', id: 2 },
                    description: { type: 'string', id: 3 },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

// protobuf.js's INamespace typing lacks map fields' keyType, hence the cast.
const GOOGLE_RPC = protobuf.Root.fromJSON(GOOGLE_RPC_SCHEMA as protobuf.INamespace);

const StatusType = GOOGLE_RPC.lookupType('google.rpc.Status');
const ErrorInfoType = GOOGLE_RPC.lookupType('google.rpc.ErrorInfo');
const BadRequestType = GOOGLE_RPC.lookupType('google.rpc.BadRequest');
const PreconditionFailureType = GOOGLE_RPC.lookupType('google.rpc.PreconditionFailure');

const TO_OBJECT: protobuf.IConversionOptions = { defaults: true, arrays: true, objects: true };

export interface FieldViolation {
  /** Path of the offending request field, e.g. `entries[0].text`. */
  readonly field: string;
  readonly description: string;
}

export interface PreconditionViolation {
  readonly type: string;
  readonly subject: string;
  readonly description: string;
}

export interface ErrorInfo {
  readonly reason: string;
  readonly domain: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** What a failed call's rich status says, in plain objects. */
export interface StatusDetails {
  readonly code: number;
  readonly message: string;
  /** The ErrorInfo detail; undefined when the status carries none. */
  readonly errorInfo: ErrorInfo | undefined;
  readonly fieldViolations: readonly FieldViolation[];
  readonly preconditionViolations: readonly PreconditionViolation[];
}

interface AnyMessage {
  typeUrl: string;
  value: Uint8Array;
}

/**
 * Decodes a serialized google.rpc.Status. Returns undefined for bytes that are not one: a
 * malformed trailer must never hide the call's real status code.
 */
export function decodeStatusDetails(bytes: Uint8Array): StatusDetails | undefined {
  try {
    const status = StatusType.toObject(StatusType.decode(bytes), TO_OBJECT) as {
      code: number;
      message: string;
      details: AnyMessage[];
    };
    let errorInfo: ErrorInfo | undefined;
    const fieldViolations: FieldViolation[] = [];
    const preconditionViolations: PreconditionViolation[] = [];
    for (const detail of status.details) {
      switch (typeName(detail.typeUrl)) {
        case 'google.rpc.ErrorInfo':
          // The contract promises exactly one; should there be more, the first one wins.
          errorInfo ??= decodeAs<ErrorInfo>(ErrorInfoType, detail.value);
          break;
        case 'google.rpc.BadRequest':
          fieldViolations.push(
            ...decodeAs<{ fieldViolations: FieldViolation[] }>(BadRequestType, detail.value)
              .fieldViolations,
          );
          break;
        case 'google.rpc.PreconditionFailure':
          preconditionViolations.push(
            ...decodeAs<{ violations: PreconditionViolation[] }>(
              PreconditionFailureType,
              detail.value,
            ).violations,
          );
          break;
        default:
          break; // detail types this client does not know are ignored, as the spec allows
      }
    }
    return {
      code: status.code,
      message: status.message,
      errorInfo,
      fieldViolations,
      preconditionViolations,
    };
  } catch {
    return undefined;
  }
}

/** Encodes a google.rpc.Status; the client never sends one, the unit tests build fixtures. */
export function encodeStatusDetails(details: {
  code: number;
  message: string;
  errorInfo?: ErrorInfo;
  fieldViolations?: readonly FieldViolation[];
  preconditionViolations?: readonly PreconditionViolation[];
}): Uint8Array {
  const packed: AnyMessage[] = [];
  if (details.errorInfo) {
    packed.push(pack(ErrorInfoType, details.errorInfo));
  }
  if (details.fieldViolations?.length) {
    packed.push(pack(BadRequestType, { fieldViolations: details.fieldViolations }));
  }
  if (details.preconditionViolations?.length) {
    packed.push(pack(PreconditionFailureType, { violations: details.preconditionViolations }));
  }
  const status = StatusType.fromObject({
    code: details.code,
    message: details.message,
    details: packed,
  });
  return StatusType.encode(status).finish();
}

function typeName(typeUrl: string): string {
  return typeUrl.startsWith(TYPE_URL_PREFIX)
    ? typeUrl.slice(TYPE_URL_PREFIX.length)
    : typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

function decodeAs<T>(type: protobuf.Type, value: Uint8Array): T {
  return type.toObject(type.decode(value), TO_OBJECT) as T;
}

function pack(type: protobuf.Type, value: object): AnyMessage {
  return {
    typeUrl: TYPE_URL_PREFIX + type.fullName.replace(/^\./, ''),
    value: type.encode(type.fromObject(value)).finish(),
  };
}
