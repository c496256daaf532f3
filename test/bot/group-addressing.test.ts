// Which group messages are for the bot, and how its mention is taken out of them.
import type { Message } from 'grammy/types';
import { addressedToBot, stripBotMention } from '../../src/bot/group/addressing';

const me = { id: 777, username: 'nebula_bot' };
const chat = { id: -100, type: 'supergroup' as const, title: 'G' };
const from = { id: 1, is_bot: false, first_name: 'A' };

function message(text: string, entities: Message['entities'] = [], extra: Partial<Message> = {}): Message {
  return { message_id: 1, date: 0, chat, from, text, entities, ...extra } as Message;
}
const mention = (text: string, at = text.indexOf('@nebula_bot')) => ({ type: 'mention' as const, offset: at, length: 11 });

test('commands (bare or to this bot), mentions and replies to the bot are addressed to it; nothing else is', () => {
  expect(addressedToBot(message('/image', [{ type: 'bot_command', offset: 0, length: 6 }]), me)).toBe(true);
  expect(addressedToBot(message('/image@Nebula_Bot', [{ type: 'bot_command', offset: 0, length: 17 }]), me)).toBe(true);
  expect(addressedToBot(message('/image@other_bot', [{ type: 'bot_command', offset: 0, length: 16 }]), me)).toBe(false);
  expect(addressedToBot(message('hi @nebula_bot', [mention('hi @nebula_bot')]), me)).toBe(true);
  expect(addressedToBot(message('hi @nebula_botx', [{ type: 'mention', offset: 3, length: 12 }]), me)).toBe(false);
  expect(addressedToBot(message('hello all'), me)).toBe(false);
  const reply = { message_id: 9, date: 0, chat, from: { id: 777, is_bot: true, first_name: 'N' }, text: 'x' } as Message;
  expect(addressedToBot(message('and then?', [], { reply_to_message: reply } as Partial<Message>), me)).toBe(true);
});

test('the mention is taken out of the text, with its comma, and the other entities keep their place', () => {
  const text = '@nebula_bot, what is **bold** @alice?';
  const m = message(text, [mention(text, 0), { type: 'bold', offset: 21, length: 8 }, { type: 'mention', offset: 30, length: 6 }]);
  stripBotMention(m, me);
  expect(m.text).toBe('what is **bold** @alice?');
  expect(m.entities).toEqual([
    { type: 'bold', offset: 8, length: 8 },
    { type: 'mention', offset: 17, length: 6 },
  ]);
  const captioned = {
    message_id: 2,
    date: 0,
    chat,
    from,
    caption: 'upscale @nebula_bot',
    caption_entities: [mention('upscale @nebula_bot')],
  } as Message;
  stripBotMention(captioned, me);
  expect(captioned.caption).toBe('upscale');
  expect(captioned.caption_entities).toBeUndefined();
  const alone = message('@nebula_bot', [mention('@nebula_bot', 0)]);
  stripBotMention(alone, me);
  expect(alone.text).toBe('');
});
