import type { ServerResponse } from 'node:http';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import type { SandboxHandler, SandboxRequest } from '../../src/sandbox/types';

const SCRIPT_MARKER = /\[\[script:([\w-]+)\]\]/;

/** `[[script:<name>]]` in a chat message: the scripted upstream answers with that script. */
export function scriptPrompt(name: string, text = 'please answer'): string {
  return `${text} [[script:${name}]]`;
}

function lastUserText(req: SandboxRequest): string {
  try {
    const body = JSON.parse(req.body.toString('utf8')) as { messages?: { role: string; content: unknown }[] };
    const user = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
    return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  } catch {
    return '';
  }
}

/**
 * An OpenAI Chat Completions upstream for bot tests that need a particular answer (Markdown with fences, tables,
 * `<` and `&`…): a user message naming a script is answered with that script's text, streamed in small deltas
 * as the API streams them; anything else goes to the sandbox's own OpenAI fake. Records when each scripted
 * answer was complete on the wire, so tests can measure the bot against the upstream's finish.
 */
export class ScriptedChat {
  readonly finishedAt: number[] = [];

  constructor(
    private readonly scripts: Record<string, string>,
    private readonly options: { chunkChars?: number; delayMs?: number } = {},
  ) {}

  readonly handler: SandboxHandler = async (req, res) => {
    const name = req.path.endsWith('/chat/completions') ? SCRIPT_MARKER.exec(lastUserText(req))?.[1] : undefined;
    const script = name === undefined ? undefined : this.scripts[name];
    if (script === undefined) return sandboxHandlers.openai(req, res);
    await this.stream(script, res);
  };

  private async stream(answer: string, res: ServerResponse): Promise<void> {
    const size = this.options.chunkChars ?? 16;
    const base = { id: `chatcmpl-scripted${this.finishedAt.length}`, object: 'chat.completion.chunk', created: 0, model: 'gpt-6-luna' };
    const frame = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], usage: null })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.write(frame({ role: 'assistant', content: '' }, null));
    for (let at = 0; at < answer.length; at += size) {
      res.write(frame({ content: answer.slice(at, at + size) }, null));
      await new Promise((r) => setTimeout(r, this.options.delayMs ?? 2));
    }
    res.write(frame({}, 'stop'));
    const completion = Math.ceil(answer.length / 4);
    res.write(
      `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 12, completion_tokens: completion, total_tokens: 12 + completion } })}\n\n`,
    );
    res.write('data: [DONE]\n\n');
    await new Promise<void>((resolve) => res.end(resolve));
    this.finishedAt.push(Date.now());
  }
}
