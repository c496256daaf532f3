import sharp from 'sharp';
import { listModels } from '../../src/core/catalog/catalog';
import type { ModelDefinition } from '../../src/core/catalog/types';
import type { ProviderName } from '../../src/core/providers/types';

/** The first text model of a provider in the catalog (slugs change as vendors retire models). */
export function textModel(provider: ProviderName, want: { vision?: boolean } = {}): ModelDefinition {
  const found = listModels({ category: 'text' }).find(
    (m) =>
      m.provider === provider && (want.vision === undefined || (m.config as { supports_vision?: boolean }).supports_vision === want.vision),
  );
  if (!found) throw new Error(`the catalog has no ${provider} text model matching ${JSON.stringify(want)}`);
  return found;
}

/** A small real PNG as a data: URI. */
export async function pngDataUri(): Promise<string> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** The weather tool every client test offers. */
export const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
};
