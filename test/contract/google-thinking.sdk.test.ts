import { GoogleGenAI, ThinkingLevel } from '@google/genai';
import { Agent, setGlobalDispatcher } from 'undici';
import { createGoogleSandbox } from '../../src/sandbox/google';
import { useFake } from './sandbox';

// The official `@google/genai` SDK against what the Gemini fake learned for issue 26: thinkingConfig (levels per
// model generation, never with a budget), responseJsonSchema answers, and PDF documents as inlineData.

setGlobalDispatcher(new Agent());

const fake = useFake('google', createGoogleSandbox({ streamDelayMs: 0 }));
const ai = () => new GoogleGenAI({ apiKey: 'contract-key', httpOptions: { baseUrl: fake.mount() } });
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

const ask = (model: string, config: Record<string, unknown>) =>
  ai().models.generateContent({ model, contents: 'Think about rivers', config: { maxOutputTokens: 256, ...config } });

test('thinkingConfig.thinkingLevel: thought tokens follow the level on Gemini 3 Flash', async () => {
  const low = await ask('gemini-3.5-flash', { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } });
  const high = await ask('gemini-3.5-flash', { thinkingConfig: { thinkingLevel: ThinkingLevel.HIGH } });
  const minimal = await ask('gemini-3.5-flash', { thinkingConfig: { thinkingLevel: ThinkingLevel.MINIMAL } });
  expect(high.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(low.usageMetadata!.thoughtsTokenCount!);
  expect(minimal.usageMetadata!.thoughtsTokenCount ?? 0).toBe(0);
});

test('thinkingConfig: Pro takes only LOW and HIGH; a level and a budget together are refused', async () => {
  const pro = await ask('gemini-3.1-pro-preview', { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } });
  expect(pro.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(0);
  await expect(ask('gemini-3.1-pro-preview', { thinkingConfig: { thinkingLevel: ThinkingLevel.MEDIUM } })).rejects.toThrow(/LOW, HIGH/);
  await expect(ask('gemini-3.5-flash', { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW, thinkingBudget: 1024 } })).rejects.toThrow(
    /not supported together/,
  );
  await expect(ask('gemini-2.5-flash', { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } })).rejects.toThrow(/not supported/);
});

test('responseJsonSchema: the answer is JSON of the schema', async () => {
  const r = await ask('gemini-3.5-flash', {
    responseMimeType: 'application/json',
    responseJsonSchema: { type: 'object', properties: { river: { type: 'string' }, km: { type: 'integer' } }, required: ['river', 'km'] },
  });
  expect(JSON.parse(r.text!)).toEqual({ river: expect.any(String), km: expect.any(Number) });
});

test('inlineData application/pdf: a PDF is read; bytes that are not one are refused', async () => {
  const withPdf = (data: Buffer) =>
    ai().models.generateContent({
      model: 'gemini-3.5-flash',
      contents: [
        { role: 'user', parts: [{ inlineData: { mimeType: 'application/pdf', data: data.toString('base64') } }, { text: 'Summarise' }] },
      ],
    });
  expect((await withPdf(PDF)).text).toMatch(/with 1 document/);
  await expect(withPdf(Buffer.from('plain text'))).rejects.toThrow(/no pages/);
});

test('includeThoughts: a thought summary part before the answer, whose last part Gemini 3 signs; tool turns think first', async () => {
  const answer = await ask('gemini-3.5-flash', { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW, includeThoughts: true } });
  const parts = answer.candidates![0].content!.parts!;
  expect(parts[0]).toMatchObject({ thought: true, text: expect.stringMatching(/Sandbox thought/) });
  expect(parts[parts.length - 1].thoughtSignature).toBeTruthy();
  expect(answer.text).not.toMatch(/Sandbox thought/);
  const plain = await ask('gemini-3.5-flash', { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } });
  expect(plain.candidates![0].content!.parts!.some((p) => p.thought)).toBe(false);

  const call = await ai().models.generateContent({
    model: 'gemini-3.5-flash',
    contents: 'Weather in Paris?',
    config: {
      thinkingConfig: { thinkingLevel: ThinkingLevel.LOW, includeThoughts: true },
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: {} } }] }],
    },
  });
  const callParts = call.candidates![0].content!.parts!;
  expect(callParts.map((p) => (p.thought ? 'thought' : p.functionCall ? 'call' : 'text'))).toEqual(['thought', 'call']);
  expect(callParts[1].thoughtSignature).toBeTruthy();
});

test('implicit caching: a repeated long prefix is reported as cachedContentTokenCount', async () => {
  const manual = 'Rivers carry water from the hills to the sea, every day. '.repeat(120);
  const again = (q: string) =>
    ai().models.generateContent({
      model: 'gemini-3.5-flash',
      contents: [
        { role: 'user', parts: [{ text: manual }] },
        { role: 'model', parts: [{ text: 'Noted.' }] },
        { role: 'user', parts: [{ text: q }] },
      ],
    });
  const first = await again('First?');
  expect(first.usageMetadata!.cachedContentTokenCount ?? 0).toBe(0);
  const second = await again('Second?');
  expect(second.usageMetadata!.cachedContentTokenCount).toBeGreaterThan(1000);
  expect(second.usageMetadata!.cachedContentTokenCount).toBeLessThan(second.usageMetadata!.promptTokenCount!);
});
