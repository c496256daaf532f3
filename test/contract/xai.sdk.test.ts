import OpenAI from 'openai';
import { createXaiSandbox } from '../../src/sandbox/xai';
import { useFake } from './sandbox';

// xAI documents the OpenAI SDK as its client (base URL https://api.x.ai/v1): chat, streaming, images, errors.

const fake = useFake('xai', createXaiSandbox({ chunkDelayMs: 0 }));
const client = (apiKey = 'xai-contract') => new OpenAI({ apiKey, baseURL: `${fake.mount()}/v1`, maxRetries: 0 });

test('chat completion and its stream', async () => {
  const r = await client().chat.completions.create({ model: 'grok-4.3', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 });
  expect(r.choices[0].message.content!.length).toBeGreaterThan(0);
  let text = '';
  const stream = await client().chat.completions.create({
    model: 'grok-3-mini',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
  });
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  expect(text.length).toBeGreaterThan(0);
});

test('image generation answers b64_json when asked', async () => {
  const r = await client().images.generate({ model: 'grok-imagine-image-2.0', prompt: 'a fox', response_format: 'b64_json' });
  expect(Buffer.from(r.data![0].b64_json!, 'base64')[0]).toBe(0xff); // JPEG
});

test('a wrong key and a rate limit are SDK errors with their statuses', async () => {
  const auth = await client('invalid-key')
    .chat.completions.create({ model: 'grok-4.3', messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  expect(auth).toBeInstanceOf(OpenAI.APIError);
  expect([400, 401]).toContain((auth as InstanceType<typeof OpenAI.APIError>).status);
  const limited = await client()
    .chat.completions.create({ model: 'grok-4.3', messages: [{ role: 'user', content: '[[fail:rate_limit]]' }] })
    .catch((e: unknown) => e);
  expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
});
