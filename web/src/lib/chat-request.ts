/** One turn of a playground conversation: text, and on user turns the images attached (data: URLs). */
export interface Turn {
  role: 'user' | 'assistant';
  content: string;
  images?: string[];
}

export interface ChatSettings {
  model: string;
  system: string;
  /** null: the model's default. */
  temperature: number | null;
  maxTokens: number | null;
}

type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface ChatBody {
  model: string;
  messages: { role: 'system' | 'user' | 'assistant'; content: string | Part[] }[];
  temperature?: number;
  max_tokens?: number;
  stream: true;
  stream_options: { include_usage: true };
}

/** The chat-completions body the playground sends for these settings and turns; "View code" shows the same one. */
export function chatBody(settings: ChatSettings, turns: Turn[]): ChatBody {
  const messages: ChatBody['messages'] = [];
  if (settings.system.trim()) messages.push({ role: 'system', content: settings.system });
  for (const turn of turns) {
    if (turn.role === 'user' && turn.images?.length) {
      const parts: Part[] = [
        { type: 'text', text: turn.content },
        ...turn.images.map((url): Part => ({ type: 'image_url', image_url: { url } })),
      ];
      messages.push({ role: 'user', content: parts });
    } else messages.push({ role: turn.role, content: turn.content });
  }
  return {
    model: settings.model,
    messages,
    ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
    ...(settings.maxTokens !== null ? { max_tokens: settings.maxTokens } : {}),
    stream: true,
    stream_options: { include_usage: true },
  };
}

const DATA_URL_SHOWN = 48;

/** The body as shown in code: image data cut short (a photo is megabytes of base64), everything else as sent. */
function shownBody(body: ChatBody): ChatBody {
  const cut = (url: string) => (url.startsWith('data:') && url.length > DATA_URL_SHOWN ? `${url.slice(0, DATA_URL_SHOWN)}…` : url);
  return {
    ...body,
    messages: body.messages.map((m) =>
      typeof m.content === 'string'
        ? m
        : { ...m, content: m.content.map((p) => (p.type === 'image_url' ? { ...p, image_url: { url: cut(p.image_url.url) } } : p)) },
    ),
  };
}

/** A JSON value as a Python literal (True, False, None), indented like the JSON. */
export function pythonLiteral(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent + 4);
  const end = ' '.repeat(indent);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => pad + pythonLiteral(v, indent + 4)).join(',\n')},\n${end}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${pythonLiteral(v, indent + 4)}`).join(',\n')},\n${end}}`;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export type CodeLanguage = 'curl' | 'python' | 'javascript';

/** The request as a program: curl, or the official openai SDK for Python or JavaScript, pointed at this service. */
export function requestCode(language: CodeLanguage, body: ChatBody, origin: string): string {
  const shown = shownBody(body);
  const baseUrl = `${origin}/v1`;
  const { model, messages, stream: _stream, stream_options: _options, ...options } = shown;
  switch (language) {
    case 'curl':
      return [
        `curl ${baseUrl}/chat/completions \\`,
        '  -H "Authorization: Bearer $NEBULA_API_KEY" \\',
        '  -H "Content-Type: application/json" \\',
        '  -N \\',
        `  -d ${shellQuote(JSON.stringify(shown, null, 2))}`,
      ].join('\n');
    case 'python': {
      const extra = Object.entries(options).map(([k, v]) => `    ${k}=${pythonLiteral(v, 4)},`);
      return [
        'import os',
        'from openai import OpenAI',
        '',
        `client = OpenAI(base_url=${JSON.stringify(baseUrl)}, api_key=os.environ["NEBULA_API_KEY"])`,
        '',
        'stream = client.chat.completions.create(',
        `    model=${JSON.stringify(model)},`,
        `    messages=${pythonLiteral(messages, 4)},`,
        ...extra,
        '    stream=True,',
        '    stream_options={"include_usage": True},',
        ')',
        'for chunk in stream:',
        '    if chunk.choices and chunk.choices[0].delta.content:',
        '        print(chunk.choices[0].delta.content, end="", flush=True)',
      ].join('\n');
    }
    case 'javascript': {
      const args = JSON.stringify({ model, messages, ...options, stream: true, stream_options: { include_usage: true } }, null, 2);
      return [
        "import OpenAI from 'openai';",
        '',
        `const client = new OpenAI({ baseURL: ${JSON.stringify(baseUrl)}, apiKey: process.env.NEBULA_API_KEY });`,
        '',
        `const stream = await client.chat.completions.create(${args});`,
        'for await (const chunk of stream) {',
        "  process.stdout.write(chunk.choices[0]?.delta?.content ?? '');",
        '}',
      ].join('\n');
    }
  }
}
