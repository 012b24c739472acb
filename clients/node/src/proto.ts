// The grpc-js service client, built from the generated descriptor (no .proto file is read at
// run time) with the same loader options the generated types describe.
import { loadPackageDefinition, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { fromJSON, type Options } from '@grpc/proto-loader';
import type { INamespace } from 'protobufjs';

import { DESCRIPTOR, LOADER_OPTIONS } from './generated/descriptor';
import type { ProtoGrpcType } from './generated/memory_service';
import type { MemoryServiceClient } from './generated/powercontext/memory/v1/MemoryService';

export type { MemoryServiceClient };

const LOADER_TYPES = { Number, String } as const;

const loaderOptions: Options = {
  keepCase: LOADER_OPTIONS.keepCase,
  longs: LOADER_TYPES[LOADER_OPTIONS.longs],
  enums: LOADER_TYPES[LOADER_OPTIONS.enums],
  defaults: LOADER_OPTIONS.defaults,
  oneofs: LOADER_OPTIONS.oneofs,
};

let serviceConstructor: ProtoGrpcType['powercontext']['memory']['v1']['MemoryService'] | undefined;

export function createServiceClient(
  endpoint: string,
  credentials: ChannelCredentials,
  options: ChannelOptions,
): MemoryServiceClient {
  serviceConstructor ??= (
    loadPackageDefinition(
      fromJSON(DESCRIPTOR as INamespace, loaderOptions),
    ) as unknown as ProtoGrpcType
  ).powercontext.memory.v1.MemoryService;
  return new serviceConstructor(endpoint, credentials, options);
}
