import type { ServerResponse } from 'node:http';
import { syntheticMp3 } from './synthetic';
import { SandboxHandler, SandboxRequest, sendBytes, sendJson } from './types';
import { failureMarkerIn, hangUntilClosed } from './failures';

/**
 * In-process fake of the ElevenLabs API (`xi-api-key`): POST /v1/text-to-speech/{voice_id}?output_format=
 * (audio bytes), POST /v1/speech-to-text (multipart, Scribe JSON with word timings and speaker ids) and
 * POST /v1/music (audio bytes). Errors use the documented `{"detail": {status, message}}` body. Markers in the
 * text / prompt (for speech-to-text: in the uploaded file name): [[fail:overloaded]] 429 system_busy or
 * too_many_concurrent_requests, [[fail:policy]] 400 bad_prompt (music), [[fail:timeout]] never answers,
 * [[fail:midstream]] drops the connection part-way through the audio.
 */

const FAILURES = ['overloaded', 'policy', 'timeout', 'midstream'] as const;
type Failure = (typeof FAILURES)[number];

function failureIn(text: string): Failure | undefined {
  return failureMarkerIn(text, FAILURES);
}

function fail(res: ServerResponse, status: number, code: string, message: string, extra: Record<string, unknown> = {}): void {
  sendJson(res, status, { detail: { status: code, message, ...extra } });
}

function invalidParam(res: ServerResponse, param: string, message: string): void {
  sendJson(res, 400, {
    detail: { type: 'validation_error', code: 'invalid_parameters', message, status: 'invalid_parameters', param },
  });
}

/** Sends a third of the body, then drops the connection. */
function breakOff(res: ServerResponse, data: Buffer, mime: string): void {
  res.writeHead(200, { 'content-type': mime, 'content-length': data.length });
  res.write(data.subarray(0, Math.floor(data.length / 3)));
  setTimeout(() => res.destroy(), 20);
}

function parseJson(req: SandboxRequest): Record<string, unknown> | undefined {
  try {
    const body = JSON.parse(req.body.toString('utf8')) as unknown;
    return body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A quiet 440 Hz tone as raw 16-bit mono PCM, what `pcm_<rate>` output formats carry. */
function pcmTone(seconds: number, rate: number): Buffer {
  const samples = Math.round(seconds * rate);
  const buf = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) buf.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  return buf;
}

async function textToSpeech(req: SandboxRequest, res: ServerResponse, voiceId: string): Promise<void> {
  const body = parseJson(req);
  if (!body) return invalidParam(res, 'body', 'The request body must be JSON');
  const text = typeof body.text === 'string' ? body.text : '';
  if (text.trim() === '') return invalidParam(res, 'text', 'text is required');
  if (typeof body.model_id !== 'string' || body.model_id === '') return invalidParam(res, 'model_id', 'model_id is required');
  const speed = (body.voice_settings as { speed?: unknown } | undefined)?.speed;
  if (speed !== undefined && (typeof speed !== 'number' || speed < 0.7 || speed > 1.2)) {
    return invalidParam(res, 'voice_settings.speed', 'speed must be between 0.7 and 1.2');
  }
  const failure = failureIn(text);
  if (failure === 'timeout') return hangUntilClosed(res);
  if (failure === 'overloaded') return fail(res, 429, 'system_busy', 'Our services are experiencing high levels of traffic (sandbox)');

  const format = req.query.get('output_format') ?? 'mp3_44100_128';
  const seconds = Math.max(1, text.split(/\s+/).length / 2.5);
  let data: Buffer;
  let mime: string;
  if (/^mp3_\d+_\d+$/.test(format)) {
    data = syntheticMp3(seconds);
    mime = 'audio/mpeg';
  } else if (/^pcm_\d+$/.test(format)) {
    data = pcmTone(seconds, Number(format.slice(4)));
    mime = 'audio/pcm';
  } else {
    return invalidParam(res, 'output_format', `output_format ${format} is not supported by the sandbox`);
  }
  if (failure === 'midstream') return breakOff(res, data, mime);
  res.writeHead(200, {
    'content-type': mime,
    'content-length': data.length,
    'character-cost': String(text.length),
    'request-id': `sandbox-${voiceId}`,
  });
  res.end(data);
}

/** Seconds of audio in a PCM WAV upload (from its header), or a fixed guess for anything else. */
function audioSeconds(data: Buffer): number {
  if (data.length > 44 && data.toString('ascii', 0, 4) === 'RIFF' && data.toString('ascii', 8, 12) === 'WAVE') {
    const byteRate = data.readUInt32LE(28);
    if (byteRate > 0) return Math.round(((data.length - 44) / byteRate) * 100) / 100;
  }
  return 3;
}

const SCRIPT: Array<{ speaker: string; words: string[] }> = [
  { speaker: 'speaker_0', words: ['Hello', 'from', 'the', 'sandbox.'] },
  { speaker: 'speaker_1', words: ['This', 'transcript', 'is', 'synthetic.'] },
  { speaker: 'speaker_0', words: ['Goodbye.'] },
];

function scribeResult(seconds: number, diarize: boolean, language: string): Record<string, unknown> {
  const tokens = SCRIPT.flatMap((turn) => turn.words.map((w) => ({ w, speaker: turn.speaker })));
  const step = seconds / (tokens.length * 2);
  const words: Array<Record<string, unknown>> = [];
  tokens.forEach((t, i) => {
    const start = Math.round(i * 2 * step * 1000) / 1000;
    const end = Math.round((i * 2 + 1) * step * 1000) / 1000;
    const speaker = diarize ? { speaker_id: t.speaker } : {};
    // `logprob` is a required field of every word in the documented response (the official SDK rejects a word without it).
    if (i > 0) words.push({ text: ' ', start, end: start, type: 'spacing', ...speaker, logprob: 0 });
    words.push({ text: t.w, start, end, type: 'word', ...speaker, logprob: -0.05 });
  });
  return {
    language_code: language,
    language_probability: 0.98,
    text: tokens.map((t) => t.w).join(' '),
    words,
    audio_duration_secs: seconds,
    transcription_id: 'sandbox-transcription',
  };
}

async function speechToText(req: SandboxRequest, res: ServerResponse): Promise<void> {
  const contentType = req.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) return invalidParam(res, 'file', 'multipart/form-data is required');
  let form: FormData;
  try {
    form = await new Response(req.body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return invalidParam(res, 'file', 'The multipart body could not be read');
  }
  const model = form.get('model_id');
  // scribe_v1 was removed on 2026-07-09 (ElevenLabs changelog of 2026-06-08); scribe_v2 is the file model.
  if (model !== 'scribe_v2') return invalidParam(res, 'model_id', 'model_id must be scribe_v2');
  const file = form.get('file');
  if (!(file instanceof Blob) || file.size === 0) return invalidParam(res, 'file', 'file is required');
  const failure = failureIn(file instanceof File ? file.name : '');
  if (failure === 'timeout') return hangUntilClosed(res);
  if (failure === 'overloaded') return fail(res, 429, 'too_many_concurrent_requests', 'Too many concurrent requests (sandbox)');
  const language = form.get('language_code');
  const seconds = audioSeconds(Buffer.from(await file.arrayBuffer()));
  sendJson(res, 200, scribeResult(seconds, form.get('diarize') === 'true', typeof language === 'string' && language ? language : 'eng'));
}

async function music(req: SandboxRequest, res: ServerResponse): Promise<void> {
  const body = parseJson(req);
  if (!body) return invalidParam(res, 'body', 'The request body must be JSON');
  const prompt = typeof body.prompt === 'string' ? body.prompt : '';
  if (prompt.trim() === '') return invalidParam(res, 'prompt', 'prompt or composition_plan is required');
  const length = body.music_length_ms;
  if (length !== undefined && (typeof length !== 'number' || length < 3000 || length > 600000)) {
    return invalidParam(res, 'music_length_ms', 'music_length_ms must be between 3000 and 600000');
  }
  const failure = failureIn(prompt);
  if (failure === 'timeout') return hangUntilClosed(res);
  if (failure === 'overloaded') return fail(res, 429, 'too_many_concurrent_requests', 'Too many concurrent requests (sandbox)');
  if (failure === 'policy') {
    return fail(res, 400, 'bad_prompt', 'The prompt references material the music model cannot use (sandbox)', {
      data: { prompt_suggestion: 'An original upbeat instrumental track' },
    });
  }
  const data = syntheticMp3(typeof length === 'number' ? length / 1000 : 30);
  if (failure === 'midstream') return breakOff(res, data, 'audio/mpeg');
  sendBytes(res, 200, data, 'audio/mpeg');
}

export const elevenlabsSandbox: SandboxHandler = async (rawReq, res) => {
  // The vendor's base URL has no path, so clients may join it as `<mount>/` + `/v1/...`.
  const req = { ...rawReq, path: rawReq.path.replace(/\/{2,}/g, '/') };
  const key = req.headers['xi-api-key'];
  if (typeof key !== 'string' || key === '') return fail(res, 401, 'invalid_api_key', 'Invalid API key');
  const tts = /^\/v1\/text-to-speech\/([\w-]+)$/.exec(req.path);
  if (req.method === 'POST' && tts) return textToSpeech(req, res, tts[1]);
  if (req.method === 'POST' && req.path === '/v1/speech-to-text') return speechToText(req, res);
  if (req.method === 'POST' && req.path === '/v1/music') return music(req, res);
  sendJson(res, 404, { detail: 'Not Found' });
};
