import sharp from 'sharp';
import { syntheticImage } from '../../src/sandbox/synthetic';

/** A 256x256 picture whose centre square is fully transparent (what inpainting without a mask repaints). */
export async function pngWithHole(): Promise<Buffer> {
  const hole = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png()
    .toBuffer();
  return sharp(await syntheticImage(256, 256, 'room'))
    .ensureAlpha()
    .composite([{ input: hole, left: 96, top: 96, blend: 'dest-in' }])
    .png()
    .toBuffer();
}
