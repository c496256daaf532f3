import { z } from 'zod';

// Gemini API wire shapes (https://ai.google.dev/api), only the fields we read. REST answers use camelCase.

const part = z.object({
  text: z.string().optional(),
  /** Thought summaries, present only when the request asks for them; never part of the answer. */
  thought: z.boolean().optional(),
  inlineData: z.object({ mimeType: z.string(), data: z.string() }).optional(),
  functionCall: z.object({ name: z.string(), args: z.record(z.string(), z.unknown()).optional(), id: z.string().optional() }).optional(),
  /** Opaque reasoning state: on a step's first function call, or on the last part of an answer. */
  thoughtSignature: z.string().optional(),
});

const candidate = z.object({
  content: z.object({ parts: z.array(part).optional(), role: z.string().optional() }).optional(),
  finishReason: z.string().optional(),
});

export const usageMetadata = z.object({
  promptTokenCount: z.number().optional(),
  candidatesTokenCount: z.number().optional(),
  thoughtsTokenCount: z.number().optional(),
  /** Of the prompt, tokens served from the (implicit or explicit) context cache. */
  cachedContentTokenCount: z.number().optional(),
  totalTokenCount: z.number().optional(),
});

export const googleStatus = z.object({
  code: z.number().optional(),
  message: z.string().optional(),
  status: z.string().optional(),
});
export type GoogleStatus = z.infer<typeof googleStatus>;

export const generateContentResponse = z.object({
  candidates: z.array(candidate).optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
  usageMetadata: usageMetadata.optional(),
  /** Only in a stream: an error after the 200 status line went out. */
  error: googleStatus.optional(),
});
export type GenerateContentResponse = z.infer<typeof generateContentResponse>;

export type GeminiPart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { inline_data: { mime_type: string; data: string } }
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown> } };
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** An Interactions API resource (`POST /interactions`, `GET /interactions/{id}`): snake_case, unlike the rest. */
export const interaction = z.object({
  id: z.string(),
  status: z.string(),
  steps: z
    .array(
      z.object({
        type: z.string(),
        content: z
          .array(z.object({ type: z.string(), uri: z.string().optional(), data: z.string().optional(), mime_type: z.string().optional() }))
          .optional(),
        error: googleStatus.optional(),
      }),
    )
    .optional(),
  errors: z.array(z.object({ code: z.string().optional(), message: z.string().optional() })).optional(),
});
export type Interaction = z.infer<typeof interaction>;
