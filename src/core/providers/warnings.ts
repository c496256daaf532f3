import { type GenerationWarning, unsupportedSetting } from '../warnings';
import type { MediaCapability, MediaOutput, MediaRequest } from './types';

/**
 * Options a vendor model may leave out, with the API field each comes from. Values the catalog fills in by
 * default (size, duration, voice, audio format, standard quality) are not the client's choice and never warned about.
 */
const OPTIONAL_FIELDS = {
  negativePrompt: 'negative_prompt',
  style: 'style',
  seed: 'seed',
  quality: 'quality',
  speed: 'params.speed',
  language: 'language',
  diarize: 'diarize',
  mask: 'params.mask_url',
  // A speech-to-text prompt (the words to expect); other categories' prompts are what they run on.
  prompt: 'prompt',
} as const;
export type OptionalOption = keyof typeof OPTIONAL_FIELDS;

function given(req: MediaRequest, option: OptionalOption): boolean {
  const value = (req as Partial<Record<OptionalOption, unknown>>)[option];
  if (option === 'quality') return value === 'hd';
  if (option === 'diarize') return value === true;
  if (option === 'prompt') return req.category === 'stt' && typeof value === 'string' && value !== '';
  return value !== undefined && value !== '';
}

/** The options set on `req` that are not in `used`, as warnings naming the API field. */
export function ignoredOptions(req: MediaRequest, used: readonly OptionalOption[]): GenerationWarning[] {
  return (Object.keys(OPTIONAL_FIELDS) as OptionalOption[])
    .filter((option) => !used.includes(option) && given(req, option))
    .map((option) => unsupportedSetting(OPTIONAL_FIELDS[option], req.slug));
}

/** An adapter's media capability that reports, on every completed output, the options it does not use. */
export function reportingIgnored(media: MediaCapability, uses: (req: MediaRequest) => readonly OptionalOption[]): MediaCapability {
  const withWarnings = (req: MediaRequest, output: MediaOutput): MediaOutput => {
    const warnings = ignoredOptions(req, uses(req));
    return warnings.length > 0 ? { ...output, warnings } : output;
  };
  return {
    async start(req, conn, signal) {
      const started = await media.start(req, conn, signal);
      return started.state === 'completed' ? { ...started, output: withWarnings(req, started.output) } : started;
    },
    async poll(upstreamJobId, req, conn, signal) {
      const polled = await media.poll(upstreamJobId, req, conn, signal);
      return polled.state === 'completed' ? { ...polled, output: withWarnings(req, polled.output) } : polled;
    },
  };
}
