import type { AnchorHTMLAttributes } from 'react';
import { onLinkClick } from '../lib/router';

export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  return <a {...props} onClick={onLinkClick} />;
}
