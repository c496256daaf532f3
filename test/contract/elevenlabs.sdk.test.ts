import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { elevenlabsSandbox } from '../../src/sandbox/elevenlabs';
import { syntheticWav } from '../../src/sandbox/synthetic';
import { useFake } from './sandbox';

// The official `@elevenlabs/elevenlabs-js` SDK as the client of our ElevenLabs fake: speech, Scribe
// transcription with diarization, music, and the error answers.

const fake = useFake('elevenlabs', elevenlabsSandbox);
const client = (apiKey = 'xi-contract') => new ElevenLabsClient({ apiKey, baseUrl: fake.mount(), maxRetries: 0 });

async function bytes(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

test('text-to-speech: audio bytes for a voice and model', async () => {
  const audio = await client().textToSpeech.convert('JBFqnCBsd6RMkjVDRZzb', {
    text: 'Hello there',
    modelId: 'eleven_multilingual_v2',
    outputFormat: 'mp3_44100_128',
  });
  expect((await bytes(audio)).length).toBeGreaterThan(100);
});

test('Scribe speech-to-text with diarization: words with speaker ids and logprob, parsed by the SDK', async () => {
  const file = new Blob([new Uint8Array(syntheticWav(3))], { type: 'audio/wav' });
  const r = await client().speechToText.convert({ file, modelId: 'scribe_v2', diarize: true, languageCode: 'en' });
  const result = r as { text: string; languageCode: string; words: { text: string; type: string; speakerId?: string; logprob: number }[] };
  expect(result.text.length).toBeGreaterThan(0);
  expect(result.languageCode).toBe('en');
  const words = result.words.filter((w) => w.type === 'word');
  expect(new Set(words.map((w) => w.speakerId)).size).toBeGreaterThan(1);
  expect(words.every((w) => typeof w.logprob === 'number')).toBe(true);
});

test('music: the composed track as audio bytes', async () => {
  const track = await client().music.compose({ prompt: 'calm piano', musicLengthMs: 15000, modelId: 'music_v1' });
  expect((await bytes(track)).length).toBeGreaterThan(100);
});

test('error answers: a refused key and a busy system carry their status and detail', async () => {
  const busy = await client()
    .textToSpeech.convert('JBFqnCBsd6RMkjVDRZzb', { text: 'x [[fail:overloaded]]', modelId: 'eleven_multilingual_v2' })
    .catch((e: unknown) => e);
  expect(busy).toBeInstanceOf(ElevenLabsError);
  expect((busy as ElevenLabsError).statusCode).toBe(429);
  expect(JSON.stringify((busy as ElevenLabsError).body)).toMatch(/system_busy|too_many_concurrent_requests/);
});
