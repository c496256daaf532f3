import { ModelDefinition } from '../../catalog/types';
import { NormalizedParams } from '../../catalog/params';
import { postProcessImage } from '../../media/image';
import { sniffMedia } from '../../media/sniff';
import { newResultKey, ResultStorage } from '../../media/storage';
import { MediaOutput, ProviderError } from '../../providers/types';
import { extensionOf } from '../../media/mime';

export interface StoredResult {
  resultKey: string | null;
  resultMime: string | null;
  resultText: string | null;
  metadata: Record<string, unknown> | null;
  seed: number | null;
  durationSeconds: number | null;
  /** What the vendor used and what it cost the operator (catalog/vendor-cost.ts); absent: not known. */
  vendorUsage?: Record<string, number> | null;
  vendorCostUsd?: number | null;
}

/** A transcript's segments, words and language, kept with its text (the compatible surfaces render srt, vtt...). */
function transcriptMetadata(output: MediaOutput): Record<string, unknown> | null {
  const metadata: Record<string, unknown> = {};
  if (output.segments?.length) metadata.segments = output.segments;
  if (output.words?.length) metadata.words = output.words;
  if (output.language) metadata.language = output.language;
  return Object.keys(metadata).length > 0 ? metadata : null;
}

/** Images are re-encoded by sharp (format, size); audio and video are stored as the vendor made them. */
export async function storeResult(
  storage: ResultStorage,
  model: ModelDefinition,
  params: NormalizedParams,
  output: MediaOutput,
): Promise<StoredResult> {
  const base: StoredResult = {
    resultKey: null,
    resultMime: null,
    resultText: output.text ?? null,
    metadata: null,
    seed: output.seed ?? params.seed ?? null,
    durationSeconds: output.durationSeconds != null ? Math.round(output.durationSeconds) : null,
  };
  const file = output.files[0];
  if (!file) {
    if (output.text !== undefined) return { ...base, metadata: transcriptMetadata(output) };
    throw new ProviderError('upstream', `${model.slug} returned no result`, model.provider);
  }
  const sniffed = sniffMedia(file.data);
  const isImage = sniffed ? sniffed.mime.startsWith('image/') : file.mime.startsWith('image/');
  if (isImage) {
    // Tools keep the vendor's pixels (an upscale must stay upscaled); generators get the requested size.
    const size = model.category === 'image' ? params.size : undefined;
    const img = await postProcessImage(file.data, { format: params.format, size });
    const key = newResultKey(params.format === 'jpeg' ? 'jpg' : params.format);
    await storage.put(key, img.data, img.mime);
    return { ...base, resultKey: key, resultMime: img.mime, metadata: { width: img.width, height: img.height } };
  }
  const mime = sniffed?.mime ?? file.mime;
  const ext = sniffed?.ext ?? extensionOf(mime);
  const key = newResultKey(ext);
  await storage.put(key, file.data, mime);
  return { ...base, resultKey: key, resultMime: mime };
}
