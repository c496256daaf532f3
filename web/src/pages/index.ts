import type { ComponentType } from 'react';
import { Billing } from './Billing';
import { History } from './History';
import { Keys } from './Keys';
import { Overview } from './Overview';
import { Playground } from './Playground';
import { SettingsPage } from './Settings';
import { Webhooks } from './Webhooks';

/** The signed-in pages by path. */
export const PAGES: Record<string, ComponentType> = {
  '/': Overview,
  '/keys': Keys,
  '/playground': Playground,
  '/history': History,
  '/billing': Billing,
  '/webhooks': Webhooks,
  '/settings': SettingsPage,
};
