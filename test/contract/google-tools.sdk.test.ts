import { FunctionCallingConfigMode, GoogleGenAI, Type } from '@google/genai';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { SandboxServer, startSandbox } from '../../src/sandbox/server';

// The Gemini fake's function calling, JSON output and vision, driven by the official @google/genai SDK.

let sandbox: SandboxServer;
let ai: GoogleGenAI;
beforeAll(async () => {
  sandbox = await startSandbox(sandboxHandlers);
  // An explicit fetch: the SDK's default reaches for Node's undici global dispatcher, which jest's sandboxed globals hide.
  ai = new GoogleGenAI({
    apiKey: 'test-key',
    httpOptions: { baseUrl: sandbox.mountUrl('google'), fetch: (url, init) => fetch(url, init) },
  });
});
afterAll(() => sandbox.close());

const model = 'gemini-2.5-flash';
const weather = {
  name: 'get_weather',
  description: 'Weather',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
};

test('functionCall, then functionResponse, then an answer using it', async () => {
  const question = { role: 'user', parts: [{ text: 'Weather in Prague?' }] };
  const first = await ai.models.generateContent({ model, contents: [question], config: { tools: [{ functionDeclarations: [weather] }] } });
  expect(first.functionCalls).toHaveLength(1);
  expect(first.functionCalls![0]).toMatchObject({ name: 'get_weather', args: { city: expect.any(String) } });
  const second = await ai.models.generateContent({
    model,
    config: { tools: [{ functionDeclarations: [weather] }] },
    contents: [
      question,
      first.candidates![0].content!,
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { sky: 'hail' } } }] },
    ],
  });
  expect(second.functionCalls ?? []).toHaveLength(0);
  expect(second.text).toMatch(/hail/);
});

test('streamed function call; mode NONE answers in text; ANY with a name forces it', async () => {
  let calls = 0;
  for await (const chunk of await ai.models.generateContentStream({
    model,
    contents: 'Weather in Bern?',
    config: { tools: [{ functionDeclarations: [weather] }] },
  })) {
    calls += chunk.functionCalls?.length ?? 0;
  }
  expect(calls).toBe(1);
  const none = await ai.models.generateContent({
    model,
    contents: 'hello',
    config: {
      tools: [{ functionDeclarations: [weather] }],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } },
    },
  });
  expect(none.functionCalls ?? []).toHaveLength(0);
  const clock = { name: 'get_time', parametersJsonSchema: { type: 'object', properties: { zone: { type: 'string', enum: ['UTC'] } } } };
  const forced = await ai.models.generateContent({
    model,
    contents: 'hello',
    config: {
      tools: [{ functionDeclarations: [weather, clock] }],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_time'] } },
    },
  });
  expect(forced.functionCalls![0]).toEqual(expect.objectContaining({ name: 'get_time', args: { zone: 'UTC' } }));
});

test('JSON output follows the response schema; an inline image is seen', async () => {
  const json = await ai.models.generateContent({
    model,
    contents: 'A city please',
    config: {
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  });
  expect(JSON.parse(json.text!)).toEqual({ name: expect.any(String) });
  const seen = await ai.models.generateContent({
    model,
    contents: [{ role: 'user', parts: [{ text: 'What is it?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }],
  });
  expect(seen.text).toMatch(/1 image/);
});

describe('Gemini 3 thought signatures on function calls', () => {
  const gemini3 = 'gemini-3.5-flash';
  const tools = [{ functionDeclarations: [weather] }];
  const question = { role: 'user', parts: [{ text: 'Weather in Prague?' }] };
  const answered = { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { sky: 'hail' } } }] };
  const modelTurn = (part: Record<string, unknown>) => ({ role: 'model', parts: [part] });
  const call = { functionCall: { name: 'get_weather', args: { city: 'Prague' } } };
  const send = (contents: unknown[]) => ai.models.generateContent({ model: gemini3, config: { tools }, contents: contents as never });

  test('the call comes signed, and the turn replayed as received is answered', async () => {
    const first = await ai.models.generateContent({ model: gemini3, contents: [question], config: { tools } });
    const part = first.candidates![0].content!.parts![0];
    expect(part.functionCall?.name).toBe('get_weather');
    expect(part.thoughtSignature!.length).toBeGreaterThan(0);
    expect((await send([question, first.candidates![0].content!, answered])).text).toMatch(/hail/);
  });

  test('in the current turn an unsigned call is refused, a forged one too; the documented dummy passes', async () => {
    const unsigned = await send([question, modelTurn(call), answered]).catch((e: unknown) => e);
    expect((unsigned as Error).message).toMatch(/Function call is missing a thought_signature/);
    const forged = await send([question, modelTurn({ ...call, thoughtSignature: 'bm90IGEgc2lnbmF0dXJl' }), answered]).catch(
      (e: unknown) => e,
    );
    expect((forged as Error).message).toMatch(/Corrupted thought signature/);
    const dummy = await send([question, modelTurn({ ...call, thoughtSignature: 'skip_thought_signature_validator' }), answered]);
    expect(dummy.text).toMatch(/hail/);
  });

  test('a turn before the last user message is not checked', async () => {
    const later = { role: 'user', parts: [{ text: 'And tomorrow?' }] };
    const res = await send([question, modelTurn(call), answered, { role: 'model', parts: [{ text: 'Hail.' }] }, later]);
    expect(res.candidates![0].content!.parts!.length).toBeGreaterThan(0);
  });
});
