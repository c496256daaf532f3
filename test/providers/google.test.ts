import sharp from 'sharp';
import { googleAdapter } from '../../src/core/providers/google';
import { ChatRequest, ChatStreamEvent, MediaRequest } from '../../src/core/providers/types';
import { createGoogleSandbox } from '../../src/sandbox/google';
import { syntheticMp4 } from '../../src/sandbox/synthetic';
import { bodyOf, collect, failure, useVendorSandbox } from '../support/vendor-sandbox';
import { waitUntil } from '../support/wait';

const DELAY_MS = 15;
const chat = googleAdapter.chat!;
const media = googleAdapter.media!;

const { received, cutShort, conn } = useVendorSandbox(googleAdapter, createGoogleSandbox({ streamDelayMs: DELAY_MS, pendingPolls: 1 }));

function ask(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { upstreamModel: 'gemini-3.5-flash', messages: [{ role: 'user', content: text }], maxTokens: 200, ...extra };
}

function image(prompt: string, extra: Partial<MediaRequest> = {}): MediaRequest {
  return { category: 'image', slug: 'gemini-3.1-flash-image', upstreamModel: 'gemini-3.1-flash-image', prompt, ...extra };
}

function video(prompt: string, extra: Partial<MediaRequest> = {}): MediaRequest {
  return { category: 'video', slug: 'gemini-omni-1.1-flash', upstreamModel: 'gemini-omni-1.1-flash', prompt, ...extra };
}

describe('gemini text against the sandbox', () => {
  test('maps the request: model path, x-goog-api-key, systemInstruction, user/model roles, inline image, config', async () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    await chat.chat(
      {
        upstreamModel: 'gemini-3.1-pro-preview',
        maxTokens: 77,
        temperature: 1.3,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is it?' },
              { type: 'image', mime: 'image/png', data: png },
            ],
          },
        ],
      },
      conn(),
    );
    const req = received[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1beta/models/gemini-3.1-pro-preview:generateContent');
    expect(req.headers['x-goog-api-key']).toBe('test-key');
    expect(req.query.get('key')).toBeNull();
    expect(bodyOf(req)).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'model', parts: [{ text: 'hello' }] },
        { role: 'user', parts: [{ text: 'what is it?' }, { inline_data: { mime_type: 'image/png', data: png.toString('base64') } }] },
      ],
      generationConfig: { maxOutputTokens: 77, temperature: 1.3 },
    });
  });

  test('maps the response: text, STOP → stop, usage', async () => {
    const result = await chat.chat(ask('why is the sky blue'), conn());
    expect(result.text).toContain('Sandbox reply from gemini-3.5-flash');
    expect(result.text).toContain('why is the sky blue');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.completionTokens).toBe(result.text.match(/\S+\s*/g)!.length);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
  });

  test('MAX_TOKENS → length', async () => {
    const result = await chat.chat(ask('tell me everything', { maxTokens: 4 }), conn());
    expect(result.finishReason).toBe('length');
    expect(result.usage.completionTokens).toBe(4);
  });

  test('streams SSE chunks as they arrive: deltas in order, then usage, then finish', async () => {
    const whole = await chat.chat(ask('stream it please'), conn());
    const events: ChatStreamEvent[] = [];
    const times: number[] = [];
    for await (const ev of chat.chatStream(ask('stream it please'), conn())) {
      events.push(ev);
      times.push(Date.now());
    }
    const req = received[1];
    expect(req.path).toBe('/v1beta/models/gemini-3.5-flash:streamGenerateContent');
    expect(req.query.get('alt')).toBe('sse');
    const deltas = events.filter((e): e is { type: 'delta'; text: string } => e.type === 'delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((d) => d.text).join('')).toBe(whole.text);
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: whole.usage },
      { type: 'finish', finishReason: 'stop' },
    ]);
    expect(times[deltas.length - 1] - times[0]).toBeGreaterThanOrEqual((deltas.length - 1) * DELAY_MS * 0.5);
  });

  test("replayed tool calls a client kept no signature for carry the dummy on each step's first call", async () => {
    const calls = [
      { id: 'c1', name: 'get_weather', arguments: '{"city":"Prague"}' },
      { id: 'c2', name: 'get_weather', arguments: '{"city":"Brno"}' },
    ];
    const result = await chat.chat(
      ask('x', {
        tools: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
        messages: [
          { role: 'user', content: 'Weather in Prague and Brno?' },
          { role: 'assistant', content: '', toolCalls: calls },
          { role: 'tool', content: '{"sky":"hail"}', toolCallId: 'c1' },
          { role: 'tool', content: '{"sky":"sun"}', toolCallId: 'c2' },
        ],
      }),
      conn(),
    );
    const contents = bodyOf(received[0]).contents as { role: string; parts: Record<string, unknown>[] }[];
    expect(contents[1].parts).toEqual([
      { functionCall: { name: 'get_weather', args: { city: 'Prague' } }, thoughtSignature: 'skip_thought_signature_validator' },
      { functionCall: { name: 'get_weather', args: { city: 'Brno' } } },
    ]);
    expect(result.text.length).toBeGreaterThan(0);
  });

  test('real thought signatures: a call signature comes back tied to its call and goes back on it; the answer signature on its text', async () => {
    const tools = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
    const question: ChatRequest['messages'][number] = { role: 'user', content: 'Weather in Prague?' };
    const first = await chat.chat(ask('x', { tools, reasoningEffort: 'low', messages: [question] }), conn());
    expect(bodyOf(received[0]).generationConfig).toMatchObject({ thinkingConfig: { thinkingLevel: 'LOW', includeThoughts: true } });
    const call = first.toolCalls![0];
    expect(first.reasoning).toEqual([
      { type: 'text', provider: 'google', text: expect.stringMatching(/Sandbox thought/) },
      { type: 'encrypted', provider: 'google', data: expect.any(String), callId: call.id },
    ]);
    const signature = (first.reasoning![1] as { data: string }).data;
    const messages: ChatRequest['messages'] = [
      question,
      { role: 'assistant', content: '', reasoning: first.reasoning, toolCalls: first.toolCalls },
      { role: 'tool', content: '{"sky":"hail"}', toolCallId: call.id },
    ];
    const second = await chat.chat(ask('x', { tools, reasoningEffort: 'low', messages }), conn());
    const contents = bodyOf(received[1]).contents as { role: string; parts: Record<string, unknown>[] }[];
    expect(contents[1].parts).toEqual([{ functionCall: { name: 'get_weather', args: expect.any(Object) }, thoughtSignature: signature }]);
    const turn = second.reasoning!.find((r) => r.type === 'encrypted')!;
    expect(turn).toEqual({ type: 'encrypted', provider: 'google', data: expect.any(String) });

    const third = await chat.chat(
      ask('x', {
        messages: [
          ...messages,
          { role: 'assistant', content: second.text, reasoning: second.reasoning },
          { role: 'user', content: 'Thanks' },
        ],
      }),
      conn(),
    );
    const replayed = bodyOf(received[2]).contents as { role: string; parts: Record<string, unknown>[] }[];
    expect(replayed[3].parts).toEqual([{ text: second.text, thoughtSignature: (turn as { data: string }).data }]);
    expect(third.text.length).toBeGreaterThan(0);
  });

  test('streamed thoughts: reasoning deltas, the whole thought, the call, then its signature', async () => {
    const tools = [{ name: 'get_weather', parameters: { type: 'object', properties: {} } }];
    const events = await collect(chat.chatStream(ask('Weather?', { tools, reasoningEffort: 'low' }), conn()));
    expect(events.map((e) => e.type)).toEqual(['reasoning_delta', 'reasoning', 'tool_call', 'reasoning', 'usage', 'finish']);
    const call = events[2] as { id: string };
    expect(events[3]).toEqual({
      type: 'reasoning',
      reasoning: { type: 'encrypted', provider: 'google', data: expect.any(String), callId: call.id },
    });
  });

  test('no API key → the vendor 403 → auth', async () => {
    const err = await failure(chat.chat(ask('hi'), conn({ apiKey: '' })));
    expect(err.kind).toBe('auth');
    expect(err.upstreamStatus).toBe(403);
  });

  test('[[fail:overloaded]] → 503 UNAVAILABLE → overloaded (chat and stream)', async () => {
    const err = await failure(chat.chat(ask('[[fail:overloaded]]'), conn()));
    expect(err.kind).toBe('overloaded');
    expect(err.upstreamStatus).toBe(503);
    expect((await failure(collect(chat.chatStream(ask('[[fail:overloaded]]'), conn())))).kind).toBe('overloaded');
  });

  test('[[fail:policy]] → promptFeedback.blockReason in a 200 → content_policy (chat and stream)', async () => {
    expect((await failure(chat.chat(ask('[[fail:policy]]'), conn()))).kind).toBe('content_policy');
    expect((await failure(collect(chat.chatStream(ask('[[fail:policy]]'), conn())))).kind).toBe('content_policy');
  });

  test('[[fail:upstream]] → 500 INTERNAL → upstream', async () => {
    expect((await failure(chat.chat(ask('[[fail:upstream]]'), conn()))).kind).toBe('upstream');
  });

  test('[[fail:timeout]] → timeout', async () => {
    const err = await failure(chat.chat(ask('[[fail:timeout]]'), conn({ timeoutMs: 300 })));
    expect(err.kind).toBe('timeout');
  });

  test('[[fail:midstream]] → two deltas, then upstream when the connection drops', async () => {
    const seen: ChatStreamEvent[] = [];
    const err = await failure(
      (async () => {
        for await (const ev of chat.chatStream(ask('go on [[fail:midstream]]'), conn())) seen.push(ev);
      })(),
    );
    expect(err.kind).toBe('upstream');
    expect(seen).toHaveLength(2);
    expect(seen.every((e) => e.type === 'delta')).toBe(true);
  });

  test('aborting the signal closes the upstream stream', async () => {
    const ac = new AbortController();
    await expect(
      (async () => {
        for await (const ev of chat.chatStream(ask('a fairly long question to answer slowly'), conn(), ac.signal)) {
          if (ev.type === 'delta') ac.abort();
        }
      })(),
    ).rejects.toThrow();
    await waitUntil(() => cutShort.length > 0, 5000, 'the fake saw the connection close');
    expect(cutShort).toEqual([true]);
  });
});

describe('gemini-3.1-flash-image against the sandbox', () => {
  test('asks for the IMAGE modality with imageConfig.aspectRatio and returns the inline PNG', async () => {
    const start = await media.start(image('a red bicycle', { size: '2:3', seed: 42 }), conn());
    expect(start.state).toBe('completed');
    if (start.state !== 'completed') return;
    const req = received[0];
    expect(req.path).toBe('/v1beta/models/gemini-3.1-flash-image:generateContent');
    expect(req.headers['x-goog-api-key']).toBe('test-key');
    expect(bodyOf(req)).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'a red bicycle' }] }],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '2:3' }, seed: 42 },
    });
    const [file] = start.output.files;
    expect(file.mime).toBe('image/png');
    const meta = await sharp(file.data).metadata();
    expect([meta.width, meta.height]).toEqual([832, 1248]);
  });

  test('an input image is sent as inline_data after the prompt (edit); WxH sizes become a ratio', async () => {
    const input = Buffer.from('ffd8ffe000104a464946', 'hex');
    await media.start(image('make it blue', { size: '1024x1024', images: [{ data: input, mime: 'image/jpeg' }] }), conn());
    const body = bodyOf(received[0]) as { contents: { parts: unknown[] }[]; generationConfig: Record<string, unknown> };
    expect(body.contents[0].parts).toEqual([
      { text: 'make it blue' },
      { inline_data: { mime_type: 'image/jpeg', data: input.toString('base64') } },
    ]);
    expect(body.generationConfig.imageConfig).toEqual({ aspectRatio: '1:1' });
  });

  test('[[fail:policy]] → IMAGE_SAFETY finish → content_policy; [[fail:overloaded]] → overloaded', async () => {
    expect((await failure(media.start(image('x [[fail:policy]]'), conn()))).kind).toBe('content_policy');
    expect((await failure(media.start(image('x [[fail:overloaded]]'), conn()))).kind).toBe('overloaded');
  });

  test('a model past its shutdown (the old gemini-2.5-flash-image) answers 404', async () => {
    const err = await failure(media.start(image('a cat', { upstreamModel: 'gemini-2.5-flash-image' }), conn()));
    expect(err.upstreamStatus).toBe(404);
  });
});

describe('gemini tts against the sandbox', () => {
  const speak = (prompt: string, extra: Partial<MediaRequest> = {}): MediaRequest => ({
    category: 'tts',
    slug: 'gemini-3.8-flash-tts',
    upstreamModel: 'gemini-3.8-flash-tts',
    prompt,
    ...extra,
  });

  test('generateContent with the AUDIO modality and a prebuilt voice; the 24 kHz PCM comes back as WAV', async () => {
    const start = await media.start(speak('Say cheerfully: have a wonderful day!', { voiceId: 'Puck' }), conn());
    const req = received[0];
    expect(req.path).toBe('/v1beta/models/gemini-3.8-flash-tts:generateContent');
    expect(req.headers['x-goog-api-key']).toBe('test-key');
    expect(bodyOf(req)).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Say cheerfully: have a wonderful day!' }] }],
      generationConfig: {
        responseModalities: ['AUDIO'],
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } },
      },
    });
    expect(start.state).toBe('completed');
    if (start.state !== 'completed') return;
    const [file] = start.output.files;
    expect(file.mime).toBe('audio/wav');
    expect(file.data.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(file.data.readUInt32LE(24)).toBe(24000);
    expect(start.output.usage).toEqual({ characters: 'Say cheerfully: have a wonderful day!'.length });
  });

  test('no voice named → Kore; a voice the model does not have → 400 → bad_request', async () => {
    await media.start(speak('hello', { upstreamModel: 'gemini-3.8-flash-lite-tts' }), conn());
    expect(received[0].path).toBe('/v1beta/models/gemini-3.8-flash-lite-tts:generateContent');
    expect(bodyOf(received[0])).toMatchObject({
      generationConfig: { speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    });
    const err = await failure(media.start(speak('hello', { voiceId: 'alloy' }), conn()));
    expect(err.kind).toBe('bad_request');
    expect(err.upstreamStatus).toBe(400);
  });

  test('[[fail:policy]] → promptFeedback block → content_policy; [[fail:overloaded]] → overloaded', async () => {
    expect((await failure(media.start(speak('x [[fail:policy]]'), conn()))).kind).toBe('content_policy');
    expect((await failure(media.start(speak('x [[fail:overloaded]]'), conn()))).kind).toBe('overloaded');
  });
});

describe('gemini omni video against the sandbox (interactions)', () => {
  test('start → pending with the interaction id; first poll in_progress; then completed with the MP4 its download redirects to', async () => {
    const req = video('waves at dusk', { size: '9:16', negativePrompt: 'people', durationSeconds: 4 });
    const start = await media.start(req, conn());
    expect(start.state).toBe('pending');
    if (start.state !== 'pending') return;
    expect(start.upstreamJobId).toMatch(/^v1_[A-Za-z0-9_]+$/);
    expect(start.etaSeconds).toBeGreaterThan(0);
    expect(received[0].path).toBe('/v1beta/interactions');
    expect(received[0].headers['x-goog-api-key']).toBe('test-key');
    expect(bodyOf(received[0])).toEqual({
      model: 'gemini-omni-1.1-flash',
      input: 'waves at dusk',
      response_format: { type: 'video', duration: '4s', delivery: 'uri', aspect_ratio: '9:16' },
      background: true,
    });

    expect(await media.poll(start.upstreamJobId, req, conn())).toEqual({ state: 'pending' });
    expect(received[1].method).toBe('GET');
    expect(received[1].path).toBe(`/v1beta/interactions/${start.upstreamJobId}`);

    const done = await media.poll(start.upstreamJobId, req, conn());
    expect(done.state).toBe('completed');
    if (done.state !== 'completed') return;
    expect(done.output.files[0].mime).toBe('video/mp4');
    expect(done.output.files[0].data.equals(syntheticMp4())).toBe(true);
    expect(done.output.durationSeconds).toBe(4);
    const download = received[3];
    expect(download.path).toMatch(/^\/v1beta\/files\/[^/]+:download$/);
    expect(download.query.get('alt')).toBe('media');
    expect(download.headers['x-goog-api-key']).toBe('test-key');
    expect(received[4].path).toMatch(/^\/sandbox-storage\//);
    expect(received).toHaveLength(5);
  });

  test('the default duration is sent as 8s; an input image goes after the prompt as data + mime_type', async () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    await media.start(video('a cat', { images: [{ data: png, mime: 'image/png' }] }), conn());
    expect(bodyOf(received[0])).toEqual({
      model: 'gemini-omni-1.1-flash',
      input: [
        { type: 'text', text: 'a cat' },
        { type: 'image', data: png.toString('base64'), mime_type: 'image/png' },
      ],
      response_format: { type: 'video', duration: '8s', delivery: 'uri' },
      background: true,
    });
  });

  test('gemini-omni-1.2-flash takes 15 s clips; 1.1 refuses them with a 400 → bad_request', async () => {
    const start = await media.start(video('a long take', { upstreamModel: 'gemini-omni-1.2-flash', durationSeconds: 15 }), conn());
    expect(start.state).toBe('pending');
    const err = await failure(media.start(video('a long take', { durationSeconds: 15 }), conn()));
    expect(err.kind).toBe('bad_request');
  });

  test('a download that keeps failing ends the job as failed instead of polling forever', async () => {
    const req = video('waves');
    const start = await media.start(req, conn());
    if (start.state !== 'pending') throw new Error('expected pending');
    await media.poll(start.upstreamJobId, req, conn());
    // A body over the cap is refused by the client: the finished interaction's video cannot be fetched.
    const end = await media.poll(start.upstreamJobId, req, conn({ maxResponseBytes: 2000 }));
    expect(end.state).toBe('failed');
    if (end.state === 'failed') expect(end.error.message).toMatch(/download failed/);
  });

  test('[[fail:policy]] → the interaction fails with an INVALID_ARGUMENT step error naming the safety filters → failed content_policy', async () => {
    const req = video('x [[fail:policy]]');
    const start = await media.start(req, conn());
    if (start.state !== 'pending') throw new Error('expected pending');
    expect((await media.poll(start.upstreamJobId, req, conn())).state).toBe('pending');
    const end = await media.poll(start.upstreamJobId, req, conn());
    expect(end.state).toBe('failed');
    if (end.state === 'failed') expect(end.error.kind).toBe('content_policy');
  });

  test('[[fail:upstream]] → the interaction fails with errors[] → failed upstream', async () => {
    const req = video('x [[fail:upstream]]');
    const start = await media.start(req, conn());
    if (start.state !== 'pending') throw new Error('expected pending');
    await media.poll(start.upstreamJobId, req, conn());
    const end = await media.poll(start.upstreamJobId, req, conn());
    expect(end.state).toBe('failed');
    if (end.state === 'failed') {
      expect(end.error.kind).toBe('upstream');
      expect(end.error.message).toContain('Internal error encountered.');
    }
  });

  test('[[fail:overloaded]] → 429 RESOURCE_EXHAUSTED at submit → rate_limited (retried, then given up)', async () => {
    expect((await failure(media.start(video('x [[fail:overloaded]]'), conn()))).kind).toBe('rate_limited');
    expect(received.length).toBe(3);
  });

  test('an unknown interaction (404) or a malformed id ends the job as failed bad_request', async () => {
    const unknown = await media.poll('v1_nope', video('x'), conn());
    expect(unknown.state === 'failed' && unknown.error.kind).toBe('bad_request');
    const sneaky = await media.poll('../../openai/v1/files', video('x'), conn());
    expect(sneaky.state === 'failed' && sneaky.error.kind).toBe('bad_request');
    expect(received).toHaveLength(1);
  });

  test('the shut-down Veo and Imagen endpoints answer 404', async () => {
    for (const [model, verb] of [
      ['veo-3.1-generate-preview', 'predictLongRunning'],
      ['imagen-4.0-generate-001', 'predict'],
    ]) {
      const res = await fetch(`${conn().baseUrl}/models/${model}:${verb}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
        body: JSON.stringify({ instances: [{ prompt: 'a cat' }] }),
      });
      expect(res.status).toBe(404);
    }
  });

  test('categories google does not serve are refused', async () => {
    const err = await failure(media.start({ category: 'stt', slug: 'x', upstreamModel: 'x' }, conn()));
    expect(err.kind).toBe('bad_request');
  });
});

describe('google sandbox speaks the documented protocol', () => {
  test('the key is also accepted as ?key=, and streamGenerateContent without alt=sse answers a JSON array', async () => {
    const res = await fetch(`${conn().baseUrl}/models/gemini-3.5-flash:streamGenerateContent?key=k`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] }),
    });
    expect(res.status).toBe(200);
    const chunks = (await res.json()) as { candidates: { finishReason?: string }[] }[];
    expect(Array.isArray(chunks)).toBe(true);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[chunks.length - 1].candidates[0].finishReason).toBe('STOP');
    expect(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined)).toBe(true);
  });

  test('an invalid role is refused with the google.rpc error shape', async () => {
    const res = await fetch(`${conn().baseUrl}/models/gemini-3.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({ contents: [{ role: 'assistant', parts: [{ text: 'hi' }] }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 400, message: 'Please use a valid role: user, model.', status: 'INVALID_ARGUMENT' },
    });
  });
});
