// Which input images a model takes, and under which request fields.
import type { CommandInput, CommandInputs } from '../command';
import { ParamError } from '../errors';
import type { GenerateRequest } from '../request';
import type { ImageField, ImageInput, ModelDefinition, ToolModel } from '../types';
import { unsupported } from './common';

const PAIR_FIELDS = ['params.source_image_url', 'params.target_image_url'] as const;

function inputOf<F>(request: GenerateRequest<F>, field: ImageField): CommandInput<F> | undefined {
  const source = request.images?.[field];
  return source && ('url' in source ? { field, url: source.url } : { field, file: source.file });
}

/** The one input image, under `image_url` or `params.image_url` (the same image may be named by both). */
function singleImage<F>(request: GenerateRequest<F>): { image?: CommandInput<F>; field: ImageField } {
  const top = inputOf(request, 'image_url');
  const nested = inputOf(request, 'params.image_url');
  if (top && nested && !('url' in top && 'url' in nested && top.url === nested.url)) {
    throw new ParamError('params.image_url', 'give the input image once: image_url or params.image_url');
  }
  return top ? { image: top, field: 'image_url' } : { image: nested, field: 'params.image_url' };
}

function rejectFields(model: ModelDefinition, request: GenerateRequest<unknown>, fields: readonly ImageField[]): void {
  for (const field of fields) if (request.images?.[field] !== undefined) throw unsupported(field, model);
}

/** Image and video models: one optional, required or refused input image (their `image_input`). @throws ParamError */
export function modelImageInputs<F>(model: ModelDefinition, request: GenerateRequest<F>, mode: ImageInput): CommandInputs<F> {
  const { image, field } = singleImage(request);
  rejectFields(model, request, [...PAIR_FIELDS, 'params.mask_url']);
  if (image !== undefined && mode === 'none') throw unsupported(field, model);
  if (image === undefined && mode === 'required') throw new ParamError('image_url', `${model.slug} needs an input image: image_url`);
  return { images: image ? [image] : [] };
}

/** Models that take no input image at all. @throws ParamError */
export function noImageInputs<F>(model: ModelDefinition, request: GenerateRequest<F>): CommandInputs<F> {
  const { image, field } = singleImage(request);
  if (image !== undefined) throw unsupported(field, model);
  rejectFields(model, request, [...PAIR_FIELDS, 'params.mask_url']);
  return { images: [] };
}

/** A tool takes the input images its catalog entry names (`image_url` stands for `params.image_url`). @throws ParamError */
export function toolImageInputs<F>(model: ToolModel, request: GenerateRequest<F>): CommandInputs<F> {
  const fields = model.rules.inputFields;
  const { image, field } = singleImage(request);
  rejectFields(
    model,
    request,
    PAIR_FIELDS.filter((pairField) => !fields.includes(pairField)),
  );
  const inputs: CommandInputs<F> = { images: [] };
  if (fields.includes('params.image_url')) {
    if (image === undefined) throw new ParamError('params.image_url', `${model.slug} needs an input image: params.image_url`);
    inputs.images = [image];
  } else {
    if (image !== undefined) throw unsupported(field, model);
    inputs.images = fields.map((name) => {
      const input = inputOf(request, name);
      if (!input) throw new ParamError(name, `${model.slug} needs ${fields.join(' and ')}`);
      return input;
    });
  }
  const mask = inputOf(request, 'params.mask_url');
  if (mask) {
    if (!model.config.supports_mask) throw unsupported('params.mask_url', model);
    inputs.mask = mask;
  }
  return inputs;
}
