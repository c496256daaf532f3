import type { ChatHostedTool, ChatTool, ChatToolChoice } from '../../../core/providers/types';
import type { ResponsesBody, ResponsesTool } from './schema';

// Responses tools as the core's: function tools, custom (free-form) tools, namespace tools (each member offered
// with its namespace), and the vendor-hosted ones: the web search goes to vendors that run it; the others (file
// search, code interpreter, MCP...) need state or a client this service does not have, and are named as ignored.

type NamedTool = Extract<ResponsesTool, { type: 'function' | 'custom' }>;

const WEB_SEARCH = new Set(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']);

function chatTool(t: NamedTool, namespace?: { name: string; description?: string }): ChatTool {
  const description = t.description ? { description: t.description } : {};
  const ns = namespace ? { namespace } : {};
  if (t.type === 'custom') {
    return { name: t.name, ...description, kind: 'custom', ...(t.format ? { format: t.format } : {}), ...ns };
  }
  return {
    name: t.name,
    ...description,
    ...(t.parameters ? { parameters: t.parameters } : {}),
    ...(typeof t.strict === 'boolean' ? { strict: t.strict } : {}),
    ...ns,
  };
}

export interface ResponsesTools {
  tools: ChatTool[];
  hostedTools: ChatHostedTool[];
  /** Request fields this service does not act on, as the client named them (for X-Ignored-Parameters). */
  ignored: string[];
}

/** The request's tools and those its `additional_tools` items add, in order. */
export function toolsOf(lists: readonly (readonly ResponsesTool[])[]): ResponsesTools {
  const out: ResponsesTools = { tools: [], hostedTools: [], ignored: [] };
  for (const list of lists) {
    for (const t of list) {
      if (t.type === 'function' || t.type === 'custom') out.tools.push(chatTool(t));
      else if (t.type === 'namespace') {
        const namespace = { name: t.name, ...(t.description ? { description: t.description } : {}) };
        for (const member of t.tools) out.tools.push(chatTool(member, namespace));
      } else if (WEB_SEARCH.has(t.type)) {
        const { type: _type, ...settings } = t;
        out.hostedTools.push({ type: 'web_search', settings });
      } else if (!out.ignored.includes(`tools.${t.type}`)) out.ignored.push(`tools.${t.type}`);
    }
  }
  return out;
}

/** The names `allowed_tools` lets the model call (function and custom tools by name). */
function allowedNames(choice: Extract<NonNullable<ResponsesBody['tool_choice']>, { type: 'allowed_tools' }>): Set<string> {
  return new Set(choice.tools.flatMap((t) => (typeof t.name === 'string' ? [t.name] : [])));
}

/** tool_choice as the core's, and the tools it leaves (`allowed_tools` narrows them; a forced hosted tool is `auto`). */
export function toolChoiceOf(choice: ResponsesBody['tool_choice'], tools: ChatTool[]): { toolChoice?: ChatToolChoice; tools: ChatTool[] } {
  if (choice === null || choice === undefined) return { tools };
  if (typeof choice === 'string') return { toolChoice: choice, tools };
  if (choice.type === 'function' || choice.type === 'custom') return { toolChoice: { name: choice.name as string }, tools };
  if (choice.type === 'allowed_tools') {
    const allowed = allowedNames(choice);
    return { toolChoice: choice.mode, tools: tools.filter((t) => allowed.has(t.name)) };
  }
  return { toolChoice: 'auto', tools };
}
