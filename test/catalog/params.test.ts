import { loadCommandFiles } from '../../src/core/catalog/command';
import { UnknownModelError, requireModel } from '../../src/core/catalog/catalog';
import { MAX_PROMPT_LENGTH, ParamError, commandFromRequest, normalizeGenerateParams } from '../../src/core/catalog/params';
import { bodyFromRequest, parseGenerateBody, parseGenerateCommand, requestFromBody } from '../../src/api/v2/generate-body';
import { ApiError } from '../../src/api/middleware/errors';
import { normalizeSttOptions, resolveSttModel } from '../../src/core/catalog/stt-options';

const IMG = 'https://example.com/in.png';
const IMG2 = 'https://example.com/face.jpg';

/**
 * Runs `fn` and returns the field and message of the 400 it throws: the door's shape check (ApiError) or the
 * model's rules (ParamError). Fails the test if it throws something else or nothing.
 */
function paramError(fn: () => unknown): { field: unknown; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParamError) return e;
    if (e instanceof ApiError && e.code === 'validation_error') return { field: e.details.field, message: e.message };
    throw e;
  }
  throw new Error('expected a validation error');
}

const parse = (body: Record<string, unknown>) => parseGenerateCommand(body).params;
const inputsOf = (body: Record<string, unknown>) => parseGenerateCommand(body).inputs;
const urls = (body: Record<string, unknown>) => inputsOf(body).images.map((i) => ('url' in i ? i.url : undefined));

describe('shape', () => {
  test('body must be an object with a model', () => {
    expect(paramError(() => parseGenerateCommand('hello')).field).toBe('body');
    expect(paramError(() => parseGenerateCommand({ prompt: 'x' })).field).toBe('model');
  });

  test('unknown fields are named, at top level and inside params', () => {
    const top = paramError(() => parse({ model: 'sdxl', prompt: 'x', negativePrompt: 'y' }));
    expect(top.field).toBe('negativePrompt');
    const nested = paramError(() => parse({ model: 'gemini-3.8-flash-tts', prompt: 'x', params: { voice: 'Kore' } }));
    expect(nested.field).toBe('params.voice');
  });

  test('typed fields are checked', () => {
    expect(paramError(() => parse({ model: 'sdxl', prompt: 'x', format: 'gif' })).field).toBe('format');
    expect(paramError(() => parse({ model: 'sdxl', prompt: 'x', seed: 1.5 })).field).toBe('seed');
    expect(paramError(() => parse({ model: 'sdxl', prompt: 'x', seed: -1 })).field).toBe('seed');
    expect(paramError(() => parse({ model: 'upscale', params: { image_url: 'file:///etc/passwd' } })).field).toBe('params.image_url');
  });

  test('unknown model is a typed UnknownModelError', () => {
    expect(() => parseGenerateCommand({ model: 'midjourney', prompt: 'x' })).toThrow(UnknownModelError);
  });

  test('null counts as not given', () => {
    const p = parse({ model: 'flux-dev', prompt: 'x', negative_prompt: null, size: null, seed: null, params: null });
    expect(p.size).toBe('1024x1024');
    expect(p.negativePrompt).toBeUndefined();
  });
});

describe('categories that do not belong here', () => {
  test('text models point to the chat endpoints', () => {
    const e = paramError(() => parse({ model: 'gpt-6.1-sol', prompt: 'hello' }));
    expect(e.field).toBe('model');
    expect(e.message).toContain('/v1/chat/completions');
    expect(e.message).toContain('/api/v2/generate/stream');
  });

  test('STT models point to /api/v2/stt', () => {
    expect(paramError(() => parse({ model: 'whisper-1', prompt: 'x' })).message).toContain('/api/v2/stt');
  });
});

describe('prompt', () => {
  test('required and non-blank for generative models', () => {
    expect(paramError(() => parse({ model: 'flux-dev' })).field).toBe('prompt');
    expect(paramError(() => parse({ model: 'flux-dev', prompt: '   ' })).field).toBe('prompt');
    expect(paramError(() => parse({ model: 'musicgen', prompt: '' })).field).toBe('prompt');
  });

  test(`at most ${MAX_PROMPT_LENGTH} characters`, () => {
    expect(parse({ model: 'flux-dev', prompt: 'a'.repeat(MAX_PROMPT_LENGTH) }).prompt).toHaveLength(MAX_PROMPT_LENGTH);
    const e = paramError(() => parse({ model: 'flux-dev', prompt: 'a'.repeat(MAX_PROMPT_LENGTH + 1) }));
    expect(e.field).toBe('prompt');
    expect(e.message).toContain(String(MAX_PROMPT_LENGTH));
  });

  test('tools other than style-transfer and inpaint accept an empty or missing prompt', () => {
    for (const slug of ['upscale', 'remove-bg', 'colorize', 'text-ocr']) {
      expect(parse({ model: slug, params: { image_url: IMG } }).prompt).toBe('');
      expect(parse({ model: slug, prompt: '', params: { image_url: IMG } }).prompt).toBe('');
    }
    expect(parse({ model: 'face-swap', params: { source_image_url: IMG, target_image_url: IMG2 } }).prompt).toBe('');
    for (const slug of ['style-transfer', 'inpaint']) {
      expect(paramError(() => parse({ model: slug, params: { image_url: IMG } })).field).toBe('prompt');
      expect(parse({ model: slug, prompt: 'oil painting', params: { image_url: IMG } }).prompt).toBe('oil painting');
    }
  });
});

describe('image options', () => {
  test('defaults: 1024x1024, webp, standard, no input images', () => {
    expect(parse({ model: 'gpt-image-2.6-flare', prompt: 'x' })).toEqual({
      prompt: 'x',
      size: '1024x1024',
      format: 'webp',
      quality: 'standard',
    });
    expect(inputsOf({ model: 'gpt-image-2.6-flare', prompt: 'x' })).toEqual({ images: [] });
  });

  test('aspect-ratio models default to 1:1 and map an explicit 1024x1024 to 1:1', () => {
    expect(parse({ model: 'gemini-3-pro-image', prompt: 'x' }).size).toBe('1:1');
    expect(parse({ model: 'gemini-3-pro-image', prompt: 'x', size: '1024x1024' }).size).toBe('1:1');
    expect(parse({ model: 'gemini-3-pro-image', prompt: 'x', size: '16:9' }).size).toBe('16:9');
  });

  test('a size outside the model set names the field and lists the allowed values', () => {
    const e = paramError(() => parse({ model: 'flux-dev', prompt: 'x', size: '1024x1536' }));
    expect(e.field).toBe('size');
    for (const allowed of ['1024x1024', '768x1344', '1344x768']) expect(e.message).toContain(allowed);
    expect(paramError(() => parse({ model: 'gemini-3-pro-image', prompt: 'x', size: '768x1344' })).field).toBe('size');
  });

  test('size is case-insensitive on the x', () => {
    expect(parse({ model: 'gpt-image-2.6-flare', prompt: 'x', size: '1536X1024' }).size).toBe('1536x1024');
  });

  test('negative prompt only where supported', () => {
    expect(parse({ model: 'sdxl', prompt: 'x', negative_prompt: 'blur' }).negativePrompt).toBe('blur');
    for (const slug of ['gemini-3-pro-image', 'gpt-image-2.6-flare', 'flux-dev']) {
      expect(paramError(() => parse({ model: slug, prompt: 'x', negative_prompt: 'blur' })).field).toBe('negative_prompt');
    }
    // an empty negative prompt is the same as none
    expect(parse({ model: 'gemini-3-pro-image', prompt: 'x', negative_prompt: '' }).negativePrompt).toBeUndefined();
  });

  test('quality hd and style only on models that offer them', () => {
    expect(parse({ model: 'gpt-image-2.6-flare', prompt: 'x', quality: 'hd' })).toMatchObject({ quality: 'hd' });
    // No model of the 2026-11 catalog takes a style (dall-e-3, the one that did, is shut down).
    expect(paramError(() => parse({ model: 'gpt-image-2.6-flare', prompt: 'x', style: 'natural' })).field).toBe('style');
    expect(paramError(() => parse({ model: 'flux-dev', prompt: 'x', quality: 'hd' })).field).toBe('quality');
    expect(paramError(() => parse({ model: 'gpt-image-2.6-sunburst', prompt: 'x', style: 'vivid' })).field).toBe('style');
    expect(parse({ model: 'flux-dev', prompt: 'x', quality: 'standard', format: 'png', seed: 42 })).toMatchObject({
      quality: 'standard',
      format: 'png',
      seed: 42,
    });
  });

  test('image_url only on editing models, given once', () => {
    expect(urls({ model: 'flux-kontext-pro', prompt: 'make it red', image_url: IMG })).toEqual([IMG]);
    expect(urls({ model: 'gemini-3.1-flash-image', prompt: 'x', params: { image_url: IMG } })).toEqual([IMG]);
    expect(paramError(() => parse({ model: 'gpt-image-2.6-flare', prompt: 'x', image_url: IMG })).field).toBe('image_url');
    expect(paramError(() => parse({ model: 'flux-kontext-pro', prompt: 'x', image_url: IMG, params: { image_url: IMG2 } })).field).toBe(
      'params.image_url',
    );
  });

  test('options of other categories are rejected on image models', () => {
    expect(paramError(() => parse({ model: 'sdxl', prompt: 'x', duration: 30 })).field).toBe('duration');
    expect(paramError(() => parse({ model: 'sdxl', prompt: 'x', params: { voice_id: 'alloy' } })).field).toBe('params.voice_id');
    expect(paramError(() => parse({ model: 'sdxl', prompt: 'x', params: { scale: 2 } })).field).toBe('params.scale');
  });
});

describe('video options', () => {
  test('defaults to the model default duration and size', () => {
    expect(parse({ model: 'gemini-omni-1.1-flash', prompt: 'x' })).toMatchObject({ durationSeconds: 8, size: '16:9' });
    expect(parse({ model: 'seedance-1-pro', prompt: 'x' })).toMatchObject({ durationSeconds: 5, size: '16:9' });
  });

  test('only the model durations are accepted', () => {
    expect(parse({ model: 'kling-v2.1', prompt: 'x', image_url: IMG, duration: 10 }).durationSeconds).toBe(10);
    expect(parse({ model: 'gemini-omni-1.2-flash', prompt: 'x', duration: 15 }).durationSeconds).toBe(15);
    const e = paramError(() => parse({ model: 'gemini-omni-1.1-flash', prompt: 'x', duration: 15 }));
    expect(e.field).toBe('duration');
    expect(e.message).toContain('4, 6, 8, 10');
  });

  test('kling-v2.1 needs a start image; wan-2.2 takes none; Omni takes 9:16 but not 1:1, and no negative prompt', () => {
    expect(paramError(() => parse({ model: 'kling-v2.1', prompt: 'x' })).field).toBe('image_url');
    expect(paramError(() => parse({ model: 'wan-2.2', prompt: 'x', image_url: IMG })).field).toBe('image_url');
    expect(parse({ model: 'gemini-omni-1.2-flash', prompt: 'x', size: '9:16' }).size).toBe('9:16');
    expect(paramError(() => parse({ model: 'gemini-omni-1.2-flash', prompt: 'x', size: '1024x1024' })).field).toBe('size');
    expect(paramError(() => parse({ model: 'gemini-omni-1.1-flash', prompt: 'x', negative_prompt: 'rain' })).field).toBe('negative_prompt');
    expect(paramError(() => parse({ model: 'hailuo-02', prompt: 'x', size: '16:9' })).field).toBe('size');
  });
});

describe('music options', () => {
  test('duration defaults to 30 and must be within 15..120', () => {
    expect(parse({ model: 'musicgen', prompt: 'lofi' }).durationSeconds).toBe(30);
    expect(parse({ model: 'musicgen', prompt: 'lofi', duration: 15 }).durationSeconds).toBe(15);
    expect(parse({ model: 'vendor-music', prompt: 'lofi', duration: 120 }).durationSeconds).toBe(120);
    for (const bad of [14, 121, 0]) {
      expect(paramError(() => parse({ model: 'musicgen', prompt: 'lofi', duration: bad })).field).toBe('duration');
    }
    expect(paramError(() => parse({ model: 'musicgen', prompt: 'lofi', duration: 30.5 })).field).toBe('duration');
  });

  test('audio format defaults and is checked', () => {
    expect(parse({ model: 'musicgen', prompt: 'x', params: { format: 'wav' } }).audioFormat).toBe('wav');
    expect(parse({ model: 'vendor-music', prompt: 'x' }).audioFormat).toBe('mp3');
    expect(paramError(() => parse({ model: 'vendor-music', prompt: 'x', params: { format: 'wav' } })).field).toBe('params.format');
  });
});

describe('speech synthesis options', () => {
  test('voice defaults per model; Gemini voices are checked, vendor voice ids pass through', () => {
    expect(parse({ model: 'gemini-3.8-flash-lite-tts', prompt: 'hello' })).toMatchObject({ voiceId: 'Kore', audioFormat: 'wav' });
    expect(parse({ model: 'gemini-3.8-flash-tts', prompt: 'hello', params: { voice_id: 'Puck', format: 'wav' } })).toMatchObject({
      voiceId: 'Puck',
      audioFormat: 'wav',
    });
    expect(paramError(() => parse({ model: 'gemini-3.8-flash-tts', prompt: 'hello', params: { voice_id: 'alloy' } })).field).toBe(
      'params.voice_id',
    );
    expect(paramError(() => parse({ model: 'gemini-3.8-flash-tts', prompt: 'hello', params: { format: 'mp3' } })).field).toBe(
      'params.format',
    );
    expect(parse({ model: 'vendor-v2', prompt: 'hello', params: { voice_id: 'EXAVITQu4vr4xnSDxMaL' } }).voiceId).toBe(
      'EXAVITQu4vr4xnSDxMaL',
    );
    expect(parse({ model: 'vendor-v3', prompt: 'hello' }).voiceId).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(paramError(() => parse({ model: 'vendor-v2', prompt: 'hello', params: { voice_id: '../x' } })).field).toBe('params.voice_id');
  });

  test('speed range per vendor', () => {
    expect(paramError(() => parse({ model: 'gemini-3.8-flash-tts', prompt: 'hi', params: { speed: 1 } })).field).toBe('params.speed');
    expect(paramError(() => parse({ model: 'vendor-v2', prompt: 'hi', params: { speed: 2 } })).field).toBe('params.speed');
    expect(parse({ model: 'vendor-v2', prompt: 'hi', params: { speed: 1.1 } }).speed).toBe(1.1);
  });

  test('image options are rejected', () => {
    expect(paramError(() => parse({ model: 'vendor-v2', prompt: 'hi', size: '1024x1024' })).field).toBe('size');
    expect(paramError(() => parse({ model: 'vendor-v2', prompt: 'hi', quality: 'hd' })).field).toBe('quality');
    expect(paramError(() => parse({ model: 'vendor-v2', prompt: 'hi', image_url: IMG })).field).toBe('image_url');
  });
});

describe('tools', () => {
  test('one-image tools need params.image_url (or image_url)', () => {
    for (const slug of ['upscale', 'remove-bg', 'colorize', 'text-ocr', 'style-transfer', 'inpaint']) {
      const e = paramError(() => parse({ model: slug, prompt: 'p' }));
      expect([slug, e.field]).toEqual([slug, 'params.image_url']);
    }
    expect(urls({ model: 'remove-bg', image_url: IMG })).toEqual([IMG]);
    expect(urls({ model: 'remove-bg', params: { image_url: IMG } })).toEqual([IMG]);
  });

  test('face-swap needs both URLs, in source-target order', () => {
    expect(inputsOf({ model: 'face-swap', params: { source_image_url: IMG2, target_image_url: IMG } }).images).toEqual([
      { field: 'params.source_image_url', url: IMG2 },
      { field: 'params.target_image_url', url: IMG },
    ]);
    expect(paramError(() => parse({ model: 'face-swap', params: { source_image_url: IMG2 } })).field).toBe('params.target_image_url');
    expect(paramError(() => parse({ model: 'face-swap', params: { target_image_url: IMG } })).field).toBe('params.source_image_url');
    expect(paramError(() => parse({ model: 'face-swap', params: { image_url: IMG } })).field).toBe('params.image_url');
    expect(paramError(() => parse({ model: 'upscale', params: { image_url: IMG, source_image_url: IMG } })).field).toBe(
      'params.source_image_url',
    );
  });

  test('upscale scale is 2 by default, 2 or 4 only', () => {
    expect(parse({ model: 'upscale', params: { image_url: IMG } }).scale).toBe(2);
    expect(parse({ model: 'upscale', params: { image_url: IMG, scale: 4 } }).scale).toBe(4);
    expect(paramError(() => parse({ model: 'upscale', params: { image_url: IMG, scale: 3 } })).field).toBe('params.scale');
    expect(paramError(() => parse({ model: 'colorize', params: { image_url: IMG, scale: 2 } })).field).toBe('params.scale');
  });

  test('inpaint takes an optional mask; other tools do not', () => {
    const mask = 'data:image/png;base64,iVBORw0KGgo=';
    expect(inputsOf({ model: 'inpaint', prompt: 'a hat', params: { image_url: IMG, mask_url: mask } }).mask).toEqual({
      field: 'params.mask_url',
      url: mask,
    });
    expect(inputsOf({ model: 'inpaint', prompt: 'a hat', params: { image_url: IMG } }).mask).toBeUndefined();
    expect(paramError(() => parse({ model: 'remove-bg', params: { image_url: IMG, mask_url: mask } })).field).toBe('params.mask_url');
  });
});

test('a door may give an image field as a file: it passes the same rules as a URL and travels as the file', () => {
  const photo = { id: 'telegram-file' };
  const command = parseGenerateCommand({ model: 'face-swap' }, { 'params.source_image_url': photo, 'params.target_image_url': photo });
  expect(command.inputs.images).toEqual([
    { field: 'params.source_image_url', file: photo },
    { field: 'params.target_image_url', file: photo },
  ]);
  expect(paramError(() => parseGenerateCommand({ model: 'face-swap' }, { 'params.source_image_url': photo })).field).toBe(
    'params.target_image_url',
  );
  expect(paramError(() => parseGenerateCommand({ model: 'gpt-image-2.6-flare', prompt: 'x' }, { image_url: photo })).field).toBe(
    'image_url',
  );
  expect(
    paramError(() => parseGenerateCommand({ model: 'remove-bg', params: { image_url: IMG } }, { 'params.image_url': photo })).message,
  ).toMatch(/not both/);
});

test('normalizeGenerateParams works on a typed request for a given model', () => {
  const request = { model: 'sd-3.5-large', prompt: 'x', size: '2:3', negativePrompt: 'text' };
  expect(normalizeGenerateParams(requireModel('sd-3.5-large'), request)).toMatchObject({ size: '2:3', negativePrompt: 'text' });
});

test('a door-neutral request runs the same rules as the body, without any body', () => {
  const command = commandFromRequest({ model: 'gemini-3.8-flash-tts', prompt: 'hi', voiceId: 'Puck', audioFormat: 'wav' });
  expect(command.params).toMatchObject({ voiceId: 'Puck', audioFormat: 'wav' });
  expect(paramError(() => commandFromRequest({ model: 'gemini-3.8-flash-tts', prompt: 'hi', seed: 3 })).field).toBe('seed');
  expect(paramError(() => commandFromRequest({ model: 'flux-dev', prompt: 'x', scale: 2 })).field).toBe('params.scale');
  expect(paramError(() => commandFromRequest({ model: 'flux-dev', prompt: 'x', duration: 5 })).message).toMatch(/only to music and video/);
});

test('the body and the request translate both ways', () => {
  const body = {
    model: 'inpaint',
    prompt: 'a hat',
    format: 'png' as const,
    params: { image_url: IMG, mask_url: IMG2 },
  };
  const request = requestFromBody(parseGenerateBody(body));
  expect(request).toMatchObject({
    model: 'inpaint',
    format: 'png',
    images: { 'params.image_url': { url: IMG }, 'params.mask_url': { url: IMG2 } },
  });
  expect(JSON.parse(JSON.stringify(bodyFromRequest(request)))).toEqual(body);
  expect(JSON.parse(JSON.stringify(bodyFromRequest({ model: 'flux-dev', prompt: 'x' })))).toEqual({ model: 'flux-dev', prompt: 'x' });
});

describe('speech-to-text options', () => {
  test('default model when none is named; non-STT models are refused', () => {
    expect(resolveSttModel(undefined).model.slug).toBe('gpt-transcribe');
    expect(resolveSttModel('').model.slug).toBe('gpt-transcribe');
    // whisper-1, the default until its successor took over, is served by it.
    expect(resolveSttModel('whisper-1')).toMatchObject({ model: { slug: 'gpt-transcribe' }, replaced: { from: 'whisper-1' } });
    expect(resolveSttModel('vendor-scribe-v2').model.slug).toBe('vendor-scribe-v2');
    // The retired slug is answered by its replacement.
    expect(resolveSttModel('vendor-scribe')).toMatchObject({ model: { slug: 'vendor-scribe-v2' }, replaced: { from: 'vendor-scribe' } });
    expect(paramError(() => resolveSttModel('vendor-v2')).field).toBe('model');
    expect(() => resolveSttModel('nope')).toThrow(UnknownModelError);
  });

  test('diarize only on vendor-scribe-v2; language codes checked', () => {
    const scribe = resolveSttModel('vendor-scribe-v2').model;
    const whisper = resolveSttModel('gpt-transcribe').model;
    expect(normalizeSttOptions(scribe, { diarize: 'true', language: 'RU' })).toEqual({ diarize: true, language: 'ru' });
    expect(normalizeSttOptions(whisper, { diarize: 'false' })).toEqual({ diarize: false });
    expect(normalizeSttOptions(whisper, { language: 'auto' })).toEqual({ diarize: false });
    const e = paramError(() => normalizeSttOptions(whisper, { diarize: true }));
    expect(e.field).toBe('diarize');
    expect(e.message).toContain('vendor-scribe-v2');
    expect(paramError(() => normalizeSttOptions(whisper, { language: 'english!' })).field).toBe('language');
    expect(paramError(() => normalizeSttOptions(scribe, { diarize: 'maybe' })).field).toBe('diarize');
  });
});

test('loadCommandFiles turns the door’s file references into files, in order, and leaves URLs alone', async () => {
  const command = parseGenerateCommand(
    { model: 'inpaint', prompt: 'a hat', params: { mask_url: IMG } },
    { 'params.image_url': { fileId: 'photo-1' } },
  );
  const loaded: string[] = [];
  const withFiles = await loadCommandFiles(command, async (ref) => {
    loaded.push(ref.fileId);
    return { data: Buffer.from(ref.fileId) };
  });
  expect(loaded).toEqual(['photo-1']);
  expect(withFiles.inputs).toEqual({
    images: [{ field: 'params.image_url', file: { data: Buffer.from('photo-1') } }],
    mask: { field: 'params.mask_url', url: IMG },
  });
});
