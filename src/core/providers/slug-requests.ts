import type { CatalogModel } from '../catalog/models';
import type { MediaCategory, MediaRequest, MediaRequestOf } from './types';

/** The request type of a catalog slug's category: per-vendor model tables give each entry exactly its request. */
export type RequestForSlug<S extends string> = MediaRequestOf<Extract<Extract<CatalogModel, { slug: S }>['category'], MediaCategory>>;

/** Every input file of a request (images, mask, audio), whatever its category. */
export function inputFilesOf(req: MediaRequest) {
  return [
    ...('images' in req ? (req.images ?? []) : []),
    ...('mask' in req && req.mask ? [req.mask] : []),
    ...('audio' in req && req.audio ? [req.audio] : []),
  ];
}
