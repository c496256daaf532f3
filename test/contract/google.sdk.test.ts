import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GoogleGenAI } from '@google/genai';
import { Agent, setGlobalDispatcher } from 'undici';
import { createGoogleSandbox } from '../../src/sandbox/google';
import { syntheticMp4 } from '../../src/sandbox/synthetic';
import { useFake } from './sandbox';

// The official `@google/genai` SDK as the client of our Gemini API fake: generateContent (text and image),
// streamGenerateContent, Veo's predictLongRunning + operation polling + the file download, and errors.

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

test('Veo: generateVideos with duration, ratio, negative prompt and an image; polled to done; the download follows the redirect', async () => {
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  let op = await ai().models.generateVideos({
    model: 'veo-3.1-fast-generate-preview',
    source: { prompt: 'waves on black rocks', image: { imageBytes: png.toString('base64'), mimeType: 'image/png' } },
    config: { durationSeconds: 4, aspectRatio: '9:16', negativePrompt: 'people' },
  });
  expect(op.name).toMatch(/operations\//);
  for (let i = 0; i < 5 && !op.done; i++) op = await ai().operations.getVideosOperation({ operation: op });
  expect(op.done).toBe(true);
  const video = op.response!.generatedVideos![0].video!;
  expect(video.uri).toMatch(/files\/.+:download\?alt=media$/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veo-'));
  const target = path.join(dir, 'clip.mp4');
  // The SDK addresses the download by the file name it reads from an https URI (the sandbox is plain http on
  // loopback, so the test gives it the URI as Google would write it); the fake then redirects it to storage.
  const asGoogleWritesIt = { uri: video.uri!.replace(/^http:\/\/[^/]+\/google/, 'https://generativelanguage.googleapis.com') };
  await ai().files.download({ file: asGoogleWritesIt, downloadPath: target });
  expect(fs.readFileSync(target).equals(syntheticMp4())).toBe(true);
});

test('an unsupported Veo duration is refused as Google refuses it (400 INVALID_ARGUMENT)', async () => {
  const err = await ai()
    .models.generateVideos({ model: 'veo-3.1-generate-preview', source: { prompt: 'x' }, config: { durationSeconds: 7 } })
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ status: 400 });
});

test('error answers: an overloaded model is 503 UNAVAILABLE, a Veo quota 429 RESOURCE_EXHAUSTED', async () => {
  const busy = await ai()
    .models.generateContent({ model: 'gemini-3.5-flash', contents: 'x [[fail:overloaded]]' })
    .catch((e: unknown) => e);
  expect(busy).toMatchObject({ status: 503 });
  expect(String((busy as Error).message)).toMatch(/UNAVAILABLE/);
  const exhausted = await ai()
    .models.generateVideos({ model: 'veo-3.1-generate-preview', source: { prompt: 'x [[fail:overloaded]]' } })
    .catch((e: unknown) => e);
  expect(exhausted).toMatchObject({ status: 429 });
  expect(String((exhausted as Error).message)).toMatch(/RESOURCE_EXHAUSTED/);
});
