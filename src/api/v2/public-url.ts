import os from 'node:os';
import ipaddr from 'ipaddr.js';
import type { ParameterizedContext } from 'koa';
import type { AppConfig } from '../../config';
import { linkBase } from '../../core/links/link-origins';

// The HTTP door's side of the link rule (core/links): which origin a request stores with what it creates, and
// which base a mailed link gets.

/** The origin this request was addressed to (Koa 3's `ctx.origin` is the Origin header, not this). */
export function requestOrigin(ctx: ParameterizedContext): string {
  return `${ctx.protocol}://${ctx.host}`;
}

/** Base of the links of what this request creates: PUBLIC_URL, else the request's origin. */
export function publicBaseUrl(ctx: ParameterizedContext, config: Pick<AppConfig, 'links'>): string {
  return linkBase(config.links, requestOrigin(ctx));
}

/** Origins under which this service's own result URLs may come back in this request (results chain). */
export function ownOrigins(ctx: ParameterizedContext, config: Pick<AppConfig, 'links'>): string[] {
  return [...new Set([publicBaseUrl(ctx, config), requestOrigin(ctx), config.links.listenOrigin])];
}

/**
 * Base of links mailed to an address (email verification, password reset): PUBLIC_URL; else the origin the user
 * came in through when its host is this machine itself (a loopback name or address, or an address of one of its
 * interfaces at the port the request arrived on), so the link opens where they registered; else the listen
 * address. A host named only by the request's headers is never trusted for a mailed link: whoever asks for a reset
 * of someone else's account would choose where its token goes (link poisoning).
 */
export function mailLinkBase(ctx: ParameterizedContext, config: Pick<AppConfig, 'links'>): string {
  if (config.links.publicUrl) return config.links.publicUrl;
  return namesThisMachine(ctx) ? requestOrigin(ctx) : config.links.listenOrigin;
}

function namesThisMachine(ctx: ParameterizedContext): boolean {
  let url: URL;
  try {
    url = new URL(requestOrigin(ctx));
  } catch {
    return false;
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host.toLowerCase() === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  const address = ipaddr.process(host);
  if (address.range() === 'loopback') return true;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return port === String(ctx.req.socket.localPort) && interfaceAddresses().has(address.toString());
}

function interfaceAddresses(): Set<string> {
  const all = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []);
  return new Set(all.map((i) => ipaddr.process(i.address.replace(/%.*$/, '')).toString()));
}
