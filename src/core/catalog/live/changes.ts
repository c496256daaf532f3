/** A NOTIFY channel's listener (see PgAccountChangeFeed.listen). */
export interface ChangeChannelListener {
  /** A change was announced on the channel. */
  heard(payload: string): void;
  /** Listening (re)started: changes may have been missed, read everything again. */
  reset(): void;
}

/** Where the catalog's changes are heard from (every instance, every writer). */
export interface CatalogChangeSource {
  listen(channel: string, listener: ChangeChannelListener): void;
}

export const CATALOG_CHANGES_CHANNEL = 'catalog_changes';
