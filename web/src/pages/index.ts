import type { ComponentType } from 'react';
import { Keys } from './Keys';
import { Overview } from './Overview';

/** The signed-in pages by path. */
export const PAGES: Record<string, ComponentType> = {
  '/': Overview,
  '/keys': Keys,
};
