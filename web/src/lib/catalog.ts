import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';

export type CatalogModel = components['schemas']['Model'];

let catalog: Promise<CatalogModel[]> | null = null;

/** The model catalog (GET /api/v2/models), fetched once per page load and shared by the pages that need it. */
export function loadCatalog(): Promise<CatalogModel[]> {
  // A failed read (the network, or an error answer that unwrap throws) is not kept: the next caller asks again.
  catalog ??= api
    .GET('/api/v2/models')
    .then((r) => unwrap(r).models)
    .catch((err: unknown) => {
      catalog = null;
      throw err;
    });
  return catalog;
}
