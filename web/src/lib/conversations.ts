import type { ChatSettings, Turn } from './chat-request';

/** A playground conversation kept in this browser: its settings and turns. */
export interface Conversation extends ChatSettings {
  id: string;
  title: string;
  turns: Turn[];
  updatedAt: string;
}

const PREFIX = 'nb_playground_';

/** Conversations live in localStorage per account, so two people on one browser do not see each other's. */
function storageKey(userId: number): string {
  return `${PREFIX}${userId}`;
}

function isConversation(value: unknown): value is Conversation {
  const c = value as Conversation | null;
  return !!c && typeof c.id === 'string' && typeof c.title === 'string' && Array.isArray(c.turns) && typeof c.model === 'string';
}

export function loadConversations(userId: number): Conversation[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(userId)) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isConversation) : [];
  } catch {
    return [];
  }
}

/**
 * Saves the list, newest first. When the browser's storage is full (images are large), the images of the
 * conversations are dropped, oldest first, until it fits: the text of every conversation is kept.
 */
export function saveConversations(userId: number, list: Conversation[]): void {
  let toSave = list;
  for (let i = list.length; i >= 0; i -= 1) {
    try {
      localStorage.setItem(storageKey(userId), JSON.stringify(toSave));
      return;
    } catch {
      toSave = toSave.map((c, j) => (j >= i - 1 ? { ...c, turns: c.turns.map(({ images: _images, ...turn }) => turn) } : c));
    }
  }
}

/** Removes every conversation of the account from this browser (signing out of a deleted account). */
export function forgetConversations(userId: number): void {
  localStorage.removeItem(storageKey(userId));
}

export function newConversation(settings: ChatSettings): Conversation {
  return { ...settings, id: crypto.randomUUID(), title: '', turns: [], updatedAt: new Date().toISOString() };
}

/** The first words of the first message, as the conversation's name in the list. */
export function titleOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 40 ? `${flat.slice(0, 40)}…` : flat;
}
