import { ImageValidationError, validateImageUpload } from '../../media/image';
import { ResultStorage, readStoredObject } from '../../media/storage';
import { parseDataUri } from '../../net/data-uri';
import { FetchFailedError, safeFetch, UnsafeUrlError } from '../../net/safe-fetch';
import { InputFile } from '../../providers/types';
import { InputError } from '../errors';

export const MAX_INPUT_IMAGE_BYTES = 20 * 1024 * 1024;
export const MAX_INPUT_IMAGE_PIXELS = 40_000_000;

export interface InputResolverOptions {
  storage: ResultStorage;
  fetchTimeoutMs?: number;
  /** host:port entries the SSRF check lets through (tests, local development). */
  allowPrivateHosts?: string[];
}

/**
 * Turns a user-supplied image reference into validated bytes: a `data:` URI, a result URL of this service (read
 * from storage directly, so results chain), or a public http(s) URL fetched through the SSRF-safe fetch.
 */
export class InputResolver {
  constructor(private readonly options: InputResolverOptions) {}

  private async fetchBytes(field: string, ref: string, ownOrigins: string[]): Promise<{ data: Buffer; mime: string }> {
    if (ref.startsWith('data:')) {
      try {
        return parseDataUri(ref, MAX_INPUT_IMAGE_BYTES);
      } catch (err) {
        throw new InputError(field, `${field}: ${(err as Error).message}`, 'invalid');
      }
    }
    let url: URL;
    try {
      url = new URL(ref);
    } catch {
      throw new InputError(field, `${field} must be an http(s) URL or a data: URI`, 'invalid');
    }
    const own = /^\/files\/(.+)$/.exec(url.pathname);
    if (own && ownOrigins.includes(url.origin)) {
      const stored = await this.options.storage.get(decodeURIComponent(own[1])).catch(() => null);
      if (!stored) throw new InputError(field, `${field} names a result of this service that no longer exists`, 'unusable');
      return { data: await readStoredObject(stored, MAX_INPUT_IMAGE_BYTES), mime: stored.mime };
    }
    try {
      const res = await safeFetch(url, {
        maxBytes: MAX_INPUT_IMAGE_BYTES,
        timeoutMs: this.options.fetchTimeoutMs ?? 15_000,
        allowPrivateHosts: this.options.allowPrivateHosts,
      });
      return { data: res.data, mime: res.mime };
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw new InputError(field, `${field} is not allowed: ${err.message}`, 'invalid');
      if (err instanceof FetchFailedError) throw new InputError(field, `${field} could not be fetched: ${err.message}`, 'unusable');
      throw err;
    }
  }

  async image(field: string, ref: string, ownOrigins: string[]): Promise<InputFile> {
    const { data } = await this.fetchBytes(field, ref, ownOrigins);
    return this.validateImage(field, data);
  }

  async validateImage(field: string, data: Buffer): Promise<InputFile> {
    try {
      const v = await validateImageUpload(data, { maxBytes: MAX_INPUT_IMAGE_BYTES, maxPixels: MAX_INPUT_IMAGE_PIXELS });
      return { data, mime: `image/${v.format}` };
    } catch (err) {
      if (err instanceof ImageValidationError)
        throw new InputError(field, `${field}: ${err.message}`, err.reason === 'too_large' ? 'too_large' : 'unusable');
      throw err;
    }
  }
}
