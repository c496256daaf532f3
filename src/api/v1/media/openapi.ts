// The media routes of /v1 (OpenAI's Images, Audio and Videos APIs) in the OpenAPI document.
import type Router from '@koa/router';
import { z } from 'zod';
import { components } from '../../openapi/components';
import { documentOperation, type ResponseSpec } from '../../openapi/registry';
import { V1ErrorSchema } from '../../openapi/v1-components';
import { imageEditFields, imageGenerationBody } from './image-request';

const errorSchema = V1ErrorSchema;
const error = (description: string): ResponseSpec => ({ description, schema: errorSchema });

const serviceObject = z
  .object({ tokens_spent: z.number().int(), balance: z.number().int() })
  .describe('tokens charged for this answer and the balance after it');

export const ImagesResponseSchema = z
  .object({
    created: z.number().int(),
    data: z.array(z.object({ b64_json: z.string().optional(), url: z.string().optional() })),
    background: z.enum(['transparent', 'opaque']).optional(),
    output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
    quality: z.enum(['low', 'medium', 'high']).optional(),
    size: z.string().optional().describe('WxH of the first image'),
    service: serviceObject,
  })
  .catchall(z.unknown());
components.add(ImagesResponseSchema, { id: 'ImagesResponse', description: 'An answer of the Images API routes' });

const binary = (description: string) => z.string().describe(description).meta({ format: 'binary' });

const imageEditForm = imageEditFields.extend({
  image: binary('the image to edit (PNG, JPEG, WebP or GIF, up to 20 MB); `image[]` is taken too').optional(),
  'image[]': binary('the image to edit, as the SDKs send a list (one image: the catalog’s editing models take one)').optional(),
  mask: binary(
    'for inpainting: transparent where the image is repainted, of the image’s very size; other editing models ignore it',
  ).optional(),
});

/** What a media route that runs a model may answer besides 200, in OpenAI's error body. */
function runErrors(extra: Record<number, ResponseSpec> = {}): Record<number, ResponseSpec> {
  return {
    400: error(
      'Invalid input, named in `param`: an unknown parameter, an empty prompt, a value no catalog model of the category offers, a model of another category, a non-image upload, a mask of another size',
    ),
    402: error('The balance or the API key’s budget cannot cover the request (`insufficient_tokens`, `key_budget_exceeded`)'),
    404: error('No model with this id (`model_not_found`)'),
    409: error('A request with the same Idempotency-Key is still running (`idempotency_conflict`)'),
    410: error('`model_retired`: the model is retired and has no replacement'),
    422: error('The Idempotency-Key was used with another body (`idempotency_key_reused`), or an input could not be read'),
    502: error('The provider failed (nothing charged)'),
    503: error('The model is unavailable or its provider overloaded'),
    504: error('The provider did not answer in time, or the result is still being made (`generation_pending` names it)'),
    ...extra,
  };
}

const ignoredHeaders = {
  'X-Ignored-Parameters': 'request parameters the model does not take, ignored (comma-separated; absent when none)',
  'X-Token-Balance': 'balance after the charge',
  'X-Model-Replaced': '`<requested>-><served>` when the requested model is retired and its replacement served it',
  'Idempotent-Replayed': '`true` when the answer is the replay of an earlier request with the same Idempotency-Key',
};

/** The media operations of /v1. */
export function documentMedia(router: Router): void {
  const images = ['Images (compatible)'];
  documentOperation(router, {
    method: 'post',
    path: '/images/generations',
    operationId: 'createImage',
    summary: 'OpenAI’s image generation for every image model of the catalog (n images, each a generation)',
    description:
      'The same generation, price (POST /api/v2/models/{slug}/calculate-price), limits, key budgets, Idempotency-Key, ' +
      'history, webhooks and ledger as POST /api/v2/generate. Options a model does not take (a style, high quality, ' +
      'a transparent background, labels) are ignored and named in X-Ignored-Parameters.',
    tags: images,
    security: 'bearer',
    apiKeyHeader: true,
    openToRestrictedKeys: true,
    body: imageGenerationBody,
    errorSchema,
    responses: { 200: { description: 'The images', schema: ImagesResponseSchema, headers: ignoredHeaders }, ...runErrors() },
  });
  documentOperation(router, {
    method: 'post',
    path: '/images/edits',
    operationId: 'createImageEdit',
    summary: 'OpenAI’s image edits for the catalog models that edit: instruction editing, and inpainting with a mask',
    description:
      'multipart/form-data: `image` (or `image[]`), optional `mask`, `prompt` and the generation options. Image models ' +
      'that take an input image edit by instruction (a mask is ignored); the inpainting tool repaints the area the mask ' +
      'leaves transparent (or, without a mask, the image’s transparent area). Without `model`: the inpainting tool when ' +
      'a mask is sent, else the first Starter image model that edits.',
    tags: images,
    security: 'bearer',
    apiKeyHeader: true,
    openToRestrictedKeys: true,
    body: imageEditForm,
    bodyContentType: 'multipart/form-data',
    errorSchema,
    responses: {
      200: { description: 'The edited images', schema: ImagesResponseSchema, headers: ignoredHeaders },
      ...runErrors({
        413: error('An image or mask over 20 MB'),
        415: error('Not multipart/form-data'),
      }),
    },
  });
}
