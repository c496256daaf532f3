import { z } from 'zod';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.union([z.string(), z.object({ url: z.string(), detail: z.string().optional() })]),
});

/** The chat-completions request as SDK clients send it; fields we do not use are ignored, not refused. */
export const chatCompletionBody = z.object({
  model: z.string().trim().min(1, 'model is required'),
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'user', 'assistant']),
        content: z.union([z.string(), z.array(z.union([textPart, imagePart])).min(1)]),
        name: z.string().optional(),
      }),
    )
    .min(1, 'messages must not be empty')
    .max(500),
  temperature: z.number().min(0).max(2).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
});

export type ChatCompletionBody = z.infer<typeof chatCompletionBody>;
