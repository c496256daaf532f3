import { ParamError } from '../../catalog/errors';
import { ImageValidationError, maskFromTransparency, validateMask } from '../../media/image';
import type { InputFile } from '../../providers/types';
import { InputError } from '../errors';

/**
 * The mask an inpainting model gets, always one (FLUX Fill repaints what is white in it): the caller's mask as a
 * white-means-repaint PNG of the image's size, or, without one, the image's transparent area. An opaque image
 * without a mask has nothing to repaint and is refused naming the mask field (`maskField`: its name on the
 * caller's surface), before any money moves. With `sameSize`, a mask must have the image's very size (else one of
 * its shape is scaled).
 * @throws ParamError (no mask and no transparency), InputError (a mask that does not fit the image)
 */
export async function inpaintMask(
  image: InputFile,
  mask: InputFile | undefined,
  maskField: string,
  options: { sameSize?: boolean } = {},
): Promise<InputFile> {
  if (mask) {
    try {
      return { data: await validateMask(mask.data, image.data, options), mime: 'image/png' };
    } catch (err) {
      if (err instanceof ImageValidationError) {
        throw new InputError(maskField, `${maskField}: ${err.message}`, options.sameSize ? 'invalid' : 'unusable');
      }
      throw err;
    }
  }
  const derived = await maskFromTransparency(image.data);
  if (!derived) {
    throw new ParamError(
      maskField,
      `${maskField} is required: the image has no transparent area to repaint (send a mask where white marks the area, or an image whose area to repaint is transparent)`,
      'required',
    );
  }
  return { data: derived, mime: 'image/png' };
}
