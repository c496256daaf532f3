import { upstreamJson } from '../http';
import { MediaOutput, ProviderConnection, ProviderError, TtsRequest } from '../types';
import { pcmToWav } from '../wav';
import { googleHeaders, modelPath } from './auth';
import { blockedError, isPolicyFinish } from './errors';
import { generateContentResponse } from './wire';

/** The voice used when the request names none (the Gemini API's own examples use it). */
const DEFAULT_VOICE = 'Kore';

/** `audio/L16;codec=pcm;rate=24000` -> 24000; Gemini TTS speaks 16-bit mono PCM at 24 kHz. */
function sampleRate(mime: string): number {
  const rate = /rate=(\d+)/.exec(mime)?.[1];
  return rate ? Number(rate) : 24000;
}

/** The documented generateContent body for a TTS model: the AUDIO modality and one prebuilt voice. */
export function buildSpeechBody(req: TtsRequest): Record<string, unknown> {
  if (!req.prompt) throw new ProviderError('bad_request', 'text to speak is required', 'google');
  return {
    contents: [{ role: 'user', parts: [{ text: req.prompt }] }],
    generationConfig: {
      responseModalities: ['AUDIO'],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: req.voiceId ?? DEFAULT_VOICE } } },
    },
  };
}

/**
 * Gemini TTS (gemini-3.8-flash-tts and its Flash-Lite sibling): generateContent answers the speech as base64 PCM in
 * inline data, which we hand over as WAV.
 */
export async function synthesizeGeminiSpeech(req: TtsRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  const raw = await upstreamJson<unknown>('google', conn, {
    path: `${modelPath(req.upstreamModel)}:generateContent`,
    headers: googleHeaders(conn),
    body: buildSpeechBody(req),
    signal,
  });
  const parsed = generateContentResponse.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'google answered with an unexpected response shape', 'google');
  const candidate = parsed.data.candidates?.[0];
  if (!candidate && parsed.data.promptFeedback?.blockReason) throw blockedError(parsed.data.promptFeedback.blockReason);
  const audio = candidate?.content?.parts?.find((p) => p.inlineData?.mimeType.startsWith('audio/'))?.inlineData;
  if (!audio) {
    if (isPolicyFinish(candidate?.finishReason)) throw blockedError(candidate!.finishReason!);
    throw new ProviderError('upstream', `google returned no audio (finishReason ${candidate?.finishReason ?? 'none'})`, 'google');
  }
  const pcm = Buffer.from(audio.data, 'base64');
  if (pcm.length === 0) throw new ProviderError('upstream', 'google returned empty audio', 'google');
  return {
    files: [{ data: pcmToWav(pcm, sampleRate(audio.mimeType)), mime: 'audio/wav', filename: 'speech.wav' }],
    usage: { characters: (req.prompt ?? '').length },
  };
}
