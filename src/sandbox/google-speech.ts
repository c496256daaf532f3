import type { ServerResponse } from 'node:http';
import { syntheticWav } from './synthetic';
import { sendJson } from './types';

// Gemini TTS in the Gemini API fake: generateContent on a `-tts` model with the AUDIO modality and a prebuilt voice,
// answered as base64 16-bit PCM at 24 kHz in inline data (the speech-generation guide's shape).

export const TTS_VOICES = [
  'Zephyr',
  'Puck',
  'Charon',
  'Kore',
  'Fenrir',
  'Leda',
  'Orus',
  'Aoede',
  'Callirrhoe',
  'Autonoe',
  'Enceladus',
  'Iapetus',
  'Umbriel',
  'Algieba',
  'Despina',
  'Erinome',
  'Algenib',
  'Rasalgethi',
  'Laomedeia',
  'Achernar',
  'Alnilam',
  'Schedar',
  'Gacrux',
  'Pulcherrima',
  'Achird',
  'Zubenelgenubi',
  'Vindemiatrix',
  'Sadachbia',
  'Sadaltager',
  'Sulafat',
];

const RATE = 24000;

export function isTtsModel(model: string): boolean {
  return model.endsWith('-tts') || model.includes('-tts-');
}

function modalities(config: Record<string, unknown>): string[] {
  const raw = config.responseModalities ?? config.response_modalities;
  return Array.isArray(raw) ? raw.map((m) => String(m).toUpperCase()) : [];
}

/** What the API says to a generateContent body a TTS model cannot take, or to AUDIO asked of a model without it. */
export function speechProblem(model: string, config: Record<string, unknown>): string | undefined {
  const asked = modalities(config);
  if (!isTtsModel(model)) return asked.includes('AUDIO') ? 'Multi-modal output is not supported.' : undefined;
  if (asked.length !== 1 || asked[0] !== 'AUDIO') return 'The requested combination of response modalities is not supported by the model.';
  const speech = (config.speechConfig ?? config.speech_config ?? {}) as Record<string, unknown>;
  const voiceConfig = (speech.voiceConfig ?? speech.voice_config ?? {}) as Record<string, unknown>;
  const prebuilt = (voiceConfig.prebuiltVoiceConfig ?? voiceConfig.prebuilt_voice_config ?? {}) as Record<string, unknown>;
  const voice = prebuilt.voiceName ?? prebuilt.voice_name;
  if (voice !== undefined && !TTS_VOICES.includes(String(voice))) return `Voice ${String(voice)} is not supported.`;
  return undefined;
}

/** The spoken text as PCM (about 15 characters a second); a stream carries it in one chunk. */
export function speechAnswer(model: string, text: string, promptTokenCount: number, stream: boolean, res: ServerResponse): void {
  const seconds = Math.min(30, Math.max(1, text.length / 15));
  const pcm = syntheticWav(seconds, RATE).subarray(44);
  const audioTokens = Math.ceil(seconds * 25);
  const answer = {
    candidates: [
      {
        content: { parts: [{ inlineData: { mimeType: `audio/L16;codec=pcm;rate=${RATE}`, data: pcm.toString('base64') } }], role: 'model' },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount, candidatesTokenCount: audioTokens, totalTokenCount: promptTokenCount + audioTokens },
    modelVersion: model,
  };
  if (!stream) return sendJson(res, 200, answer);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
}
