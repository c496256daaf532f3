import type { SlugOf } from '../../catalog/models';
import type { RequestForSlug } from '../slug-requests';
import { MediaRequest, ProviderError } from '../types';
import { aspectRatioOf, fitToFluxBox } from './sizes';

/**
 * Request bodies of the FLUX endpoints (POST https://api.bfl.ai/v1/<model>), as documented per model:
 * flux-dev and flux-pro-1.1 take width/height, flux-pro-1.1-ultra and flux-kontext-pro take aspect_ratio,
 * Kontext edits with a base64 `input_image`, FLUX.1 Fill (inpaint) takes base64 `image` + `mask`.
 * We ask for PNG so nothing is lost before our own sharp post-processing picks the output format.
 */

type Body = Record<string, unknown>;

/** By catalog slug: a bfl model of the catalog without a builder fails the type check. */
const builders: { [S in SlugOf<'bfl'>]: (req: RequestForSlug<S>) => Body } = {
  'flux-dev': (req) => ({ ...fitToFluxBox(req.size) }),
  'flux-pro-1.1': (req) => ({ ...fitToFluxBox(req.size) }),
  'flux-pro-1.1-ultra': (req) => ({ aspect_ratio: aspectRatioOf(req.size) }),
  'flux-kontext-pro': (req) => {
    const image = req.images?.[0];
    return { aspect_ratio: aspectRatioOf(req.size), ...(image ? { input_image: image.data.toString('base64') } : {}) };
  },
  // The core always hands over a mask (the caller's, or one derived from the image's transparency: see
  // generations/media/inpaint-mask.ts), so the request never depends on BFL reading the alpha channel itself.
  inpaint: (req) => {
    const image = req.images?.[0];
    if (!image || !req.mask) {
      throw new ProviderError('bad_request', 'inpainting needs an image and a mask', 'bfl');
    }
    return { image: image.data.toString('base64'), mask: req.mask.data.toString('base64') };
  },
};

export function buildSubmitBody(req: MediaRequest): Body {
  // The table gives each slug its category's request; the catalog guarantees req is that request.
  const build = Object.hasOwn(builders, req.slug) ? (builders[req.slug as SlugOf<'bfl'>] as (req: MediaRequest) => Body) : undefined;
  if (!build) throw new ProviderError('bad_request', `bfl has no model ${req.slug}`, 'bfl');
  const body: Body = { prompt: req.prompt ?? '', ...build(req), output_format: 'png' };
  if ('seed' in req && req.seed !== undefined) body.seed = req.seed;
  return body;
}

/** Rough queue + render time, for the pipeline's first poll and the client's `eta_seconds`. */
export function etaSeconds(model: string): number {
  return model === 'flux-pro-1.1-ultra' ? 15 : model === 'flux-pro-1.0-fill' ? 12 : 8;
}
