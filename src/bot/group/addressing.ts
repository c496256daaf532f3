import type { Message, MessageEntity } from 'grammy/types';

interface Me {
  id: number;
  username: string;
}

/** The text and entities a message carries (a caption for media). */
function textOf(message: Message): { text: string; entities: MessageEntity[] } {
  return { text: message.text ?? message.caption ?? '', entities: message.entities ?? message.caption_entities ?? [] };
}

/**
 * A group message meant for the bot: a command (bare, or `/cmd@thisbot`), an @mention of it, or a reply to one of
 * its messages. Anything else in a group is none of its business (with privacy mode on, Telegram sends little else).
 */
export function addressedToBot(message: Message, me: Me): boolean {
  if (message.reply_to_message?.from?.id === me.id) return true;
  const { text, entities } = textOf(message);
  const mention = `@${me.username}`.toLowerCase();
  return entities.some((e) => {
    const part = text.slice(e.offset, e.offset + e.length).toLowerCase();
    if (e.type === 'bot_command') return e.offset === 0 && (!part.includes('@') || part.endsWith(mention));
    return e.type === 'mention' && part === mention;
  });
}

/**
 * Removes the @mentions of the bot from a message's text (or caption), so "@bot what is 2+2?" reaches the features
 * as "what is 2+2?" and "@bot upscale" as a tool caption. The other entities keep their place.
 */
export function stripBotMention(message: Message, me: Me): void {
  const { text, entities } = textOf(message);
  const mention = `@${me.username}`.toLowerCase();
  const ours = entities.filter((e) => e.type === 'mention' && text.slice(e.offset, e.offset + e.length).toLowerCase() === mention);
  if (ours.length === 0) return;
  let out = text;
  let kept = entities.filter((e) => !ours.includes(e));
  // From the last mention to the first, so earlier offsets stay valid.
  for (const m of [...ours].sort((a, b) => b.offset - a.offset)) {
    let end = m.offset + m.length;
    // A mention followed by "," or ":" ("@bot, what…") takes the mark with it, and one space.
    if (/[,:]/.test(out[end] ?? '')) end++;
    if (out[end] === ' ') end++;
    const removed = end - m.offset;
    out = out.slice(0, m.offset) + out.slice(end);
    kept = kept.map((e) => (e.offset >= end ? { ...e, offset: e.offset - removed } : e));
  }
  const trimmed = out.trimStart();
  const lead = out.length - trimmed.length;
  const final = trimmed.trimEnd();
  kept = kept.map((e) => ({ ...e, offset: e.offset - lead })).filter((e) => e.offset >= 0 && e.offset + e.length <= final.length);
  const target = message as { text?: string; caption?: string; entities?: MessageEntity[]; caption_entities?: MessageEntity[] };
  if (message.text !== undefined) {
    target.text = final;
    target.entities = kept.length > 0 ? kept : undefined;
  } else {
    target.caption = final === '' ? undefined : final;
    target.caption_entities = kept.length > 0 ? kept : undefined;
  }
}
