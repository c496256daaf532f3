import type { ChatDocumentPart, ChatSearchResultPart } from './types';

// Documents and search results as plain text, for vendors that read neither as such: the title and context first,
// then the content, so the model still sees where the text comes from.

export function documentText(part: ChatDocumentPart | ChatSearchResultPart): string {
  if (part.type === 'search_result') return [`Search result: ${part.title} (${part.source})`, ...part.texts].join('\n');
  const src = part.source;
  const body = src.type === 'text' ? src.text : src.type === 'content' ? src.texts.join('\n') : '';
  const head = [part.title !== undefined ? `Document: ${part.title}` : 'Document:', ...(part.context !== undefined ? [part.context] : [])];
  return [...head, body].join('\n');
}
