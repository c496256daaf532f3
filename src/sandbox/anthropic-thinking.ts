import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Extended thinking in the Anthropic fake, as the Messages API documents it ("Extended thinking", "Adaptive
// thinking", "Effort", "Troubleshooting thinking"): which models take which thinking mode and effort, the signature
// every thinking block carries, redacted thinking, and the rules a replayed conversation must follow: a thinking or
// redacted_thinking block comes back exactly as it was issued, and in a tool loop with thinking on, the last
// assistant turn starts with its thinking block.

/** Anthropic's documented test string: a prompt containing it gets a redacted_thinking block. */
export const REDACTED_THINKING_TRIGGER = 'ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253';

interface ClaudeThinking {
  /** The thinking modes the model takes (`enabled` with a budget, `adaptive`). */
  modes: ReadonlyArray<'enabled' | 'adaptive'>;
  /** `output_config.effort` values; empty when the model refuses the parameter. */
  efforts: readonly string[];
}

// Claude 4.7 and later take only adaptive thinking (a budget is refused); the 4.6 models take both (the budget is
// deprecated); Haiku 4.5 and earlier only a budget, and no effort.
const MODELS: Array<[RegExp, ClaudeThinking]> = [
  [/^claude-opus-4-[78]/, { modes: ['adaptive'], efforts: ['low', 'medium', 'high', 'xhigh', 'max'] }],
  [/^claude-(opus|sonnet)-4-6/, { modes: ['enabled', 'adaptive'], efforts: ['low', 'medium', 'high', 'max'] }],
];
const LEGACY: ClaudeThinking = { modes: ['enabled'], efforts: [] };

export function thinkingOf(model: string): ClaudeThinking {
  return MODELS.find(([pattern]) => pattern.test(model))?.[1] ?? LEGACY;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const DOCS = 'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** The request's thinking mode and effort as this model takes them; the error text when it does not. */
export function thinkingModeProblem(model: string, body: Record<string, unknown>): string | undefined {
  const rules = thinkingOf(model);
  const thinking = body.thinking;
  if (isObject(thinking) && thinking.type === 'enabled' && !rules.modes.includes('enabled')) {
    return `thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior. ${DOCS}`;
  }
  if (isObject(thinking) && thinking.type === 'adaptive') {
    if (!rules.modes.includes('adaptive')) return `thinking.type.adaptive is not supported for this model. ${DOCS}`;
    const extra = Object.keys(thinking).find((k) => k !== 'type' && k !== 'display');
    if (extra !== undefined) return `thinking.adaptive.${extra}: Extra inputs are not permitted`;
  }
  const effort = isObject(body.output_config) ? body.output_config.effort : undefined;
  if (effort !== undefined && effort !== null) {
    if (rules.efforts.length === 0) return 'output_config.effort: This model does not support the effort parameter.';
    if (!rules.efforts.includes(String(effort))) {
      return `output_config.effort: Input should be ${rules.efforts.map((e) => `'${e}'`).join(', ')}`;
    }
  }
  return undefined;
}

/** How many times the sandbox thinks its one sentence: more budget or effort, longer thinking (so a test sees it). */
export function thinkingRounds(body: Record<string, unknown>): number {
  const thinking = isObject(body.thinking) ? body.thinking : undefined;
  if (thinking?.type === 'enabled') return Math.max(1, Math.min(5, Math.round(Number(thinking.budget_tokens) / 4096)));
  if (thinking?.type !== 'adaptive') return 0;
  const effort = isObject(body.output_config) ? body.output_config.effort : undefined;
  const rounds: Record<string, number> = { low: 1, medium: 2, high: 3, xhigh: 4, max: 5 };
  return typeof effort === 'string' ? (rounds[effort] ?? 3) : 3;
}

// ---------- signatures ----------

// The fake's own key: its signatures verify only against the thinking they were issued for, as Anthropic's do.
const KEY = 'nebula-sandbox-anthropic-thinking';
const NONCE = 16;
const MAC = 32;

const mac = (kind: string, nonce: Buffer, text: string) => createHmac('sha256', KEY).update(kind).update(nonce).update(text).digest();

/** A thinking block's signature: it vouches for exactly this thinking text. */
export function signThinking(text: string): string {
  const nonce = randomBytes(NONCE);
  return Buffer.concat([nonce, mac('thinking', nonce, text)]).toString('base64');
}

function verifyThinking(text: string, signature: string): boolean {
  const raw = Buffer.from(signature, 'base64');
  if (raw.length !== NONCE + MAC || raw.toString('base64') !== signature) return false;
  return timingSafeEqual(raw.subarray(NONCE), mac('thinking', raw.subarray(0, NONCE), text));
}

/** A redacted_thinking block's data: the hidden reasoning, sealed so it verifies only unchanged. */
export function redactThinking(hidden: string): string {
  const nonce = randomBytes(NONCE);
  return Buffer.concat([nonce, mac('redacted', nonce, hidden), Buffer.from(hidden, 'utf8')]).toString('base64');
}

function verifyRedacted(data: string): boolean {
  const raw = Buffer.from(data, 'base64');
  if (raw.length <= NONCE + MAC || raw.toString('base64') !== data) return false;
  const hidden = raw.subarray(NONCE + MAC).toString('utf8');
  return timingSafeEqual(raw.subarray(NONCE, NONCE + MAC), mac('redacted', raw.subarray(0, NONCE), hidden));
}

// A tool_use id the fake issued after thinking carries this mark, so a replay that drops that turn's thinking is
// caught whatever the thinking mode (Anthropic knows which turns thought; a stateless fake writes it into the id).
const THOUGHT_MARK = 'T';
export const toolUseId = (n: number, thought: boolean) => `toolu_sandbox${thought ? THOUGHT_MARK : ''}${n}${Date.now().toString(36)}`;
const thoughtBefore = (id: unknown) => typeof id === 'string' && id.startsWith(`toolu_sandbox${THOUGHT_MARK}`);

interface Block {
  type?: unknown;
  thinking?: unknown;
  signature?: unknown;
  data?: unknown;
  id?: unknown;
  cache_control?: unknown;
}

const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? (content as Block[]) : []);

/**
 * Replayed reasoning as the API checks it: every thinking block with the signature issued for its text, every
 * redacted_thinking block's data unchanged, no cache_control on either; and while a tool loop runs (the conversation
 * ends in tool results) with thinking on, or after a turn that thought, the last assistant turn starts with thinking.
 */
export function replayProblem(messages: Array<{ role?: unknown; content?: unknown }>, thinkingOn: boolean): string | undefined {
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant') continue;
    for (const [j, block] of blocksOf(m.content).entries()) {
      const at = `messages.${i}.content.${j}`;
      if (block.type === 'thinking') {
        if (typeof block.signature !== 'string' || block.signature === '') return `${at}.thinking.signature: Field required`;
        if (typeof block.thinking !== 'string' || !verifyThinking(block.thinking, block.signature)) {
          return `${at}: Invalid \`signature\` in \`thinking\` block`;
        }
      } else if (block.type === 'redacted_thinking') {
        if (typeof block.data !== 'string' || !verifyRedacted(block.data)) return `${at}: Invalid \`data\` in \`redacted_thinking\` block`;
      } else continue;
      if (block.cache_control !== undefined) return `${at}.${String(block.type)}.cache_control: Extra inputs are not permitted`;
    }
  }
  const last = messages.length - 1;
  const inToolLoop = last > 0 && blocksOf(messages[last].content).some((b) => b.type === 'tool_result');
  const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant');
  if (!inToolLoop || lastAssistant < 0) return undefined;
  const blocks = blocksOf(messages[lastAssistant].content);
  const thought = blocks.some((b) => b.type === 'tool_use' && thoughtBefore(b.id));
  const first = blocks[0]?.type;
  if ((thinkingOn || thought) && first !== 'thinking' && first !== 'redacted_thinking') {
    return (
      `messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. ` +
      'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of ' +
      '`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this ' +
      `requirement, disable \`thinking\`. ${DOCS}`
    );
  }
  return undefined;
}
