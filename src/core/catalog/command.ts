// The typed command a door hands to GenerationService.generate: the model, its normalised options and its input
// images, each a reference to fetch or a file the door already holds. Doors build it with parseGenerateCommand
// (params.ts) from the /generate body plus the files they received; the core never parses a request body.
import type { NormalizedParams } from './request';
import type { ImageField, ModelDefinition } from './types';

export type { ImageField } from './types';

/** An uploaded or downloaded image; `field` names it in errors when the door calls it otherwise (`image`, `mask`). */
export interface UploadedImage {
  data: Buffer;
  field?: string;
}

/** One input image: a URL to fetch (http(s), a result of this service, a `data:` URI) or a file of type F. */
export type CommandInput<F = UploadedImage> = { field: ImageField; url: string } | { field: ImageField; file: F };

export interface CommandInputs<F = UploadedImage> {
  /** In the model's order: [image], or [source, target] for a pair. */
  images: CommandInput<F>[];
  /** Inpaint mask; without it the image's transparent area is repainted. */
  mask?: CommandInput<F>;
  /** What the door calls the mask (`mask` on /inpaint), for the refusal when it is missing; else `params.mask_url`. */
  maskField?: string;
  /** The mask must have the image's very size (OpenAI's rule on /v1/images/edits); else one of its shape is scaled. */
  maskSameSize?: boolean;
}

export interface GenerateCommand<F = UploadedImage> {
  /** The model that runs: the requested one, or its replacement when the requested one is retired. */
  model: ModelDefinition;
  /** The retired model the request named, when its replacement serves it. */
  replaced?: { from: string; shutdownAt: string | null };
  params: NormalizedParams;
  inputs: CommandInputs<F>;
  /** The same request on the models to run instead, in order, when this one cannot serve before its first byte. */
  fallbacks?: FallbackCommand[];
}

/** A model to run instead, with the request's options under its own rules (it takes the first model's inputs). */
export type FallbackCommand = Pick<GenerateCommand, 'model' | 'replaced' | 'params'>;

/** The same command with every file replaced by `load(file)` (one at a time, in order); URLs stay as they are. */
export async function loadCommandFiles<F, G>(command: GenerateCommand<F>, load: (file: F) => Promise<G>): Promise<GenerateCommand<G>> {
  const convert = async (input: CommandInput<F>): Promise<CommandInput<G>> =>
    'url' in input ? input : { field: input.field, file: await load(input.file) };
  const images: CommandInput<G>[] = [];
  for (const image of command.inputs.images) images.push(await convert(image));
  const mask = command.inputs.mask && (await convert(command.inputs.mask));
  return { ...command, inputs: { ...command.inputs, images, mask } };
}
