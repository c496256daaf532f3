import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GoogleGenAI } from '@google/genai';
import { Agent, setGlobalDispatcher } from 'undici';
import { createGoogleSandbox } from '../../src/sandbox/google';
import { syntheticMp4 } from '../../src/sandbox/synthetic';
import { useFake } from './sandbox';

// The official `@google/genai` SDK as the client of our Gemini API fake: generateContent (text and image),
// streamGenerateContent, Gemini TTS, Gemini Omni on the Interactions API (create, get, the file download), and
// errors.

// The SDK wraps undici's global dispatcher, which jest's sandboxed global object lacks: give it one.
setGlobalDispatcher(new Agent());

const fake = useFake('google', createGoogleSandbox({ streamDelayMs: 0, pendingPolls: 1 }));
const ai = () => new GoogleGenAI({ apiKey: 'contract-key', httpOptions: { baseUrl: fake.mount() } });

test('generateContent: text, finish reason and usage metadata', async () => {
  const r = await ai().models.generateContent({
    model: 'gemini-3.5-flash',
    contents: 'Say hi',
    config: { maxOutputTokens: 64, systemInstruction: 'Be brief.' },
  });
  expect(r.text!.length).toBeGreaterThan(0);
  expect(r.candidates![0].finishReason).toBe('STOP');
  expect(r.usageMetadata!.promptTokenCount).toBeGreaterThan(0);
});

test('generateContentStream: chunks whose texts make the answer; the last one has the finish reason', async () => {
  let text = '';
  let finish: string | undefined;
  for await (const chunk of await ai().models.generateContentStream({ model: 'gemini-3.1-flash-lite', contents: 'Count to three' })) {
    text += chunk.text ?? '';
    finish = chunk.candidates?.[0]?.finishReason ?? finish;
  }
  expect(text.length).toBeGreaterThan(0);
  expect(finish).toBe('STOP');
});

test('native image generation: an inline PNG part in the answer', async () => {
  const r = await ai().models.generateContent({
    model: 'gemini-3.1-flash-image',
    contents: 'a red fox',
    config: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9' } },
  });
  const part = r.candidates![0].content!.parts!.find((p) => p.inlineData);
  expect(part!.inlineData!.mimeType).toBe('image/png');
  expect(Buffer.from(part!.inlineData!.data!, 'base64').subarray(1, 4).toString()).toBe('PNG');
});

test('Gemini TTS: the AUDIO modality with a prebuilt voice answers 24 kHz L16 PCM inline', async () => {
  const r = await ai().models.generateContent({
    model: 'gemini-3.8-flash-tts',
    contents: 'Say cheerfully: have a wonderful day!',
    config: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
  });
  const audio = r.candidates![0].content!.parts![0].inlineData!;
  expect(audio.mimeType).toBe('audio/L16;codec=pcm;rate=24000');
  expect(Buffer.from(audio.data!, 'base64').length % 2).toBe(0);
  const wrongVoice = await ai()
    .models.generateContent({
      model: 'gemini-3.8-flash-lite-tts',
      contents: 'hi',
      config: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'alloy' } } } },
    })
    .catch((e: unknown) => e);
  expect(wrongVoice).toMatchObject({ status: 400 });
});

test('Gemini Omni: interactions.create in the background, polled with interactions.get to a video; the download follows the redirect', async () => {
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  const created = await ai().interactions.create({
    model: 'gemini-omni-1.1-flash',
    input: [
      { type: 'text', text: 'waves on black rocks' },
      { type: 'image', data: png.toString('base64'), mime_type: 'image/png' },
    ],
    response_format: { type: 'video', duration: '4s', aspect_ratio: '9:16', delivery: 'uri' },
    background: true,
  });
  expect(created.status).toBe('in_progress');
  let current = created;
  for (let i = 0; i < 5 && current.status === 'in_progress'; i++) current = await ai().interactions.get(created.id);
  expect(current.status).toBe('completed');
  const output = (current.steps as Array<{ type: string; content?: Array<{ type: string; uri?: string }> }>).find(
    (s) => s.type === 'model_output',
  );
  const uri = output!.content!.find((c) => c.type === 'video')!.uri!;
  expect(uri).toMatch(/files\/.+:download\?alt=media$/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'omni-'));
  const target = path.join(dir, 'clip.mp4');
  // The SDK addresses the download by the file name it reads from an https URI (the sandbox is plain http on
  // loopback, so the test gives it the URI as Google would write it); the fake then redirects it to storage.
  const asGoogleWritesIt = { uri: uri.replace(/^http:\/\/[^/]+\/google/, 'https://generativelanguage.googleapis.com') };
  await ai().files.download({ file: asGoogleWritesIt, downloadPath: target });
  expect(fs.readFileSync(target).equals(syntheticMp4())).toBe(true);
});

test('an Omni duration past the model limit is refused as Google refuses it (400 INVALID_ARGUMENT)', async () => {
  const err = await ai()
    .interactions.create({
      model: 'gemini-omni-1.1-flash',
      input: 'x',
      response_format: { type: 'video', duration: '15s' },
      background: true,
    })
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ status: 400 });
});

test('error answers: an overloaded model is 503 UNAVAILABLE, an Omni quota 429 RESOURCE_EXHAUSTED, a shut-down Veo 404', async () => {
  const busy = await ai()
    .models.generateContent({ model: 'gemini-3.5-flash', contents: 'x [[fail:overloaded]]' })
    .catch((e: unknown) => e);
  expect(busy).toMatchObject({ status: 503 });
  expect(String((busy as Error).message)).toMatch(/UNAVAILABLE/);
  const exhausted = await ai()
    .interactions.create({
      model: 'gemini-omni-1.2-flash',
      input: 'x [[fail:overloaded]]',
      response_format: { type: 'video' },
      background: true,
    })
    .catch((e: unknown) => e);
  expect(exhausted).toMatchObject({ status: 429 });
  expect(String((exhausted as Error).message)).toMatch(/RESOURCE_EXHAUSTED|exhausted/);
  const gone = await ai()
    .models.generateVideos({ model: 'veo-3.1-generate-preview', source: { prompt: 'x' } })
    .catch((e: unknown) => e);
  expect(gone).toMatchObject({ status: 404 });
});
