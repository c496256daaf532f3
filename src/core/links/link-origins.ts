/**
 * Where the links this service hands out (result files) point, by one rule on every surface: PUBLIC_URL when it is
 * set; otherwise the origin of the request that created the thing, stored with it; otherwise (the bot, schedules,
 * rows from before the origin was stored) the configured listen address. So one generation has one URL in the
 * API answer, its webhook event, the bot, the history and every later read, whoever asks and over which host.
 */
export interface LinkOrigins {
  /** PUBLIC_URL, without a trailing slash. */
  publicUrl?: string;
  /** The listen address as a link origin (`http://localhost:3000` when it listens on every interface). */
  listenOrigin: string;
}

/** The base of a thing's links, given the origin stored with it (null when it was not created by a request). */
export function linkBase(links: LinkOrigins, storedOrigin: string | null | undefined): string {
  return links.publicUrl ?? storedOrigin ?? links.listenOrigin;
}

/** `http://<host>:<port>` of a listen address; every interface (`0.0.0.0`, `::`) is reached as `localhost`. */
export function listenOriginOf(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
