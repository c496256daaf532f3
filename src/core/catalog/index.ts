// Public surface of the catalog: import from 'core/catalog' rather than from the individual files.
export * from './types';
export * from './errors';
export { MAX_PROMPT_LENGTH, MAX_SEED, characterCount } from './limits';
export {
  MODELS,
  RETIRED_ALIASES,
  SIZE_SETS,
  DEFAULT_STT_MODEL_SLUG,
  type CatalogModel,
  type ModelSlug,
  type SlugOf,
  type ToolSlug,
} from './models';
export * from './catalog';
export * from './lifecycle';
export * from './pricing';
export * from './params';
export * from './stt-options';
