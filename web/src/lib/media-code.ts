import { pythonLiteral, type CodeLanguage } from './chat-request';

/** What the media playground would ask for next. */
export interface MediaRequest {
  category: string;
  model: string;
  prompt: string;
  /** Image models: `WxH` or `W:H` from the model's sizes. */
  size?: string;
  /** Image models: webp, png or jpeg. */
  format?: string;
  /** Music: seconds. */
  duration?: number;
  /** Speech: the model's default voice. */
  voice?: string;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const PY_CLIENT = (baseUrl: string) => [
  'import os',
  'from openai import OpenAI',
  '',
  `client = OpenAI(base_url=${JSON.stringify(baseUrl)}, api_key=os.environ["NEBULA_API_KEY"])`,
  '',
];
const JS_CLIENT = (baseUrl: string) => [
  "import fs from 'node:fs';",
  "import OpenAI from 'openai';",
  '',
  `const client = new OpenAI({ baseURL: ${JSON.stringify(baseUrl)}, apiKey: process.env.NEBULA_API_KEY });`,
  '',
];

function curlJson(url: string, body: unknown, output?: string): string {
  return [
    `curl ${url} \\`,
    '  -H "Authorization: Bearer $NEBULA_API_KEY" \\',
    '  -H "Content-Type: application/json" \\',
    ...(output ? [`  -o ${output} \\`] : []),
    `  -d ${shellQuote(JSON.stringify(body, null, 2))}`,
  ].join('\n');
}

/** OpenAI's Images API: images.generate, each image written to a file. */
function imageCode(language: CodeLanguage, r: MediaRequest, baseUrl: string): string {
  const body = { model: r.model, prompt: r.prompt, size: r.size, output_format: r.format };
  const ext = r.format === 'jpeg' ? 'jpg' : (r.format ?? 'png');
  switch (language) {
    case 'curl':
      return curlJson(`${baseUrl}/images/generations`, body);
    case 'python':
      return [
        'import base64',
        ...PY_CLIENT(baseUrl),
        `result = client.images.generate(**${pythonLiteral(body)})`,
        `open("image.${ext}", "wb").write(base64.b64decode(result.data[0].b64_json))`,
      ].join('\n');
    case 'javascript':
      return [
        ...JS_CLIENT(baseUrl),
        `const result = await client.images.generate(${JSON.stringify(body, null, 2)});`,
        `fs.writeFileSync('image.${ext}', Buffer.from(result.data[0].b64_json, 'base64'));`,
      ].join('\n');
  }
}

/** OpenAI's Videos API: create the job, poll it, download the MP4. */
function videoCode(language: CodeLanguage, r: MediaRequest, baseUrl: string): string {
  const body = { model: r.model, prompt: r.prompt };
  switch (language) {
    case 'curl':
      return [
        curlJson(`${baseUrl}/videos`, body),
        '# then poll until "status" is completed (or failed), and download:',
        `curl ${baseUrl}/videos/$VIDEO_ID -H "Authorization: Bearer $NEBULA_API_KEY"`,
        `curl ${baseUrl}/videos/$VIDEO_ID/content -H "Authorization: Bearer $NEBULA_API_KEY" -o video.mp4`,
      ].join('\n');
    case 'python':
      return [
        ...PY_CLIENT(baseUrl),
        `video = client.videos.create_and_poll(**${pythonLiteral(body)})`,
        'if video.status == "completed":',
        '    client.videos.download_content(video.id).write_to_file("video.mp4")',
      ].join('\n');
    case 'javascript':
      return [
        ...JS_CLIENT(baseUrl),
        `let video = await client.videos.create(${JSON.stringify(body, null, 2)});`,
        "while (video.status === 'queued' || video.status === 'in_progress') {",
        '  await new Promise((resolve) => setTimeout(resolve, 5000));',
        '  video = await client.videos.retrieve(video.id);',
        '}',
        "if (video.status === 'completed') {",
        '  const content = await client.videos.downloadContent(video.id);',
        "  fs.writeFileSync('video.mp4', Buffer.from(await content.arrayBuffer()));",
        '}',
      ].join('\n');
  }
}

/** OpenAI's Audio API: audio.speech.create, the audio written to a file. */
function speechCode(language: CodeLanguage, r: MediaRequest, baseUrl: string): string {
  const body = { model: r.model, input: r.prompt, ...(r.voice ? { voice: r.voice } : {}) };
  switch (language) {
    case 'curl':
      return curlJson(`${baseUrl}/audio/speech`, body, 'speech.audio');
    case 'python':
      return [...PY_CLIENT(baseUrl), `client.audio.speech.create(**${pythonLiteral(body)}).write_to_file("speech.audio")`].join('\n');
    case 'javascript':
      return [
        ...JS_CLIENT(baseUrl),
        `const speech = await client.audio.speech.create(${JSON.stringify(body, null, 2)});`,
        "fs.writeFileSync('speech.audio', Buffer.from(await speech.arrayBuffer()));",
      ].join('\n');
  }
}

/** Models without an OpenAI counterpart (music, tools): the service's own POST /api/v2/generate, then polling. */
function generateCode(language: CodeLanguage, r: MediaRequest, origin: string): string {
  const body = { model: r.model, prompt: r.prompt, ...(r.duration !== undefined ? { duration: r.duration } : {}) };
  const url = `${origin}/api/v2/generate`;
  switch (language) {
    case 'curl':
      return [
        curlJson(url, body),
        '# a pending answer: poll until "status" is completed (or failed); the file is at result_url',
        `curl ${url}/$ID -H "Authorization: Bearer $NEBULA_API_KEY"`,
      ].join('\n');
    case 'python':
      return [
        'import os, time, requests',
        '',
        'headers = {"Authorization": f"Bearer {os.environ[\'NEBULA_API_KEY\']}"}',
        `g = requests.post(${JSON.stringify(url)}, headers=headers, json=${pythonLiteral(body)}).json()`,
        'while g["status"] == "pending":',
        '    time.sleep(5)',
        `    g = requests.get(f"${url}/{g['id']}", headers=headers).json()`,
        'print(g["result_url"] or g["error"])',
      ].join('\n');
    case 'javascript':
      return [
        "const headers = { Authorization: `Bearer ${process.env.NEBULA_API_KEY}`, 'Content-Type': 'application/json' };",
        `let g = await (await fetch(${JSON.stringify(url)}, { method: 'POST', headers, body: JSON.stringify(${JSON.stringify(body)}) })).json();`,
        "while (g.status === 'pending') {",
        '  await new Promise((resolve) => setTimeout(resolve, 5000));',
        `  g = await (await fetch(\`${url}/\${g.id}\`, { headers })).json();`,
        '}',
        'console.log(g.result_url ?? g.error);',
      ].join('\n');
  }
}

/**
 * A media request as a program for the standard clients (the official openai SDKs, or curl) against this service's
 * OpenAI-compatible routes: images.generate, videos.create, audio.speech.create. Categories OpenAI has no API for
 * (music, tools) use the service's own POST /api/v2/generate.
 */
export function mediaCode(language: CodeLanguage, request: MediaRequest, origin: string): string {
  const baseUrl = `${origin}/v1`;
  switch (request.category) {
    case 'image':
      return imageCode(language, request, baseUrl);
    case 'video':
      return videoCode(language, request, baseUrl);
    case 'tts':
      return speechCode(language, request, baseUrl);
    default:
      return generateCode(language, request, origin);
  }
}
