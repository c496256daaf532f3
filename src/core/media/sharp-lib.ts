import type Sharp from 'sharp';

let lib: typeof Sharp | undefined;

/**
 * sharp, loaded on first use. Loading it maps libvips (about 20 MB resident), which a process that only serves chat
 * never needs; the call signature is sharp's own.
 */
export const sharp = ((...args: Parameters<typeof Sharp>) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a deferred load, kept synchronous like sharp's API
  lib ??= require('sharp') as typeof Sharp;
  return lib(...args);
}) as typeof Sharp;

export type { Metadata as SharpMetadata } from 'sharp';
