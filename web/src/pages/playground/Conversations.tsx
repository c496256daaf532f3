import { useApp } from '../../app-context';
import type { Conversation } from '../../lib/conversations';
import { formatDateTime } from '../../lib/format';

/** The conversations kept in this browser, newest first: open one, start a new one, delete one. */
export function Conversations(props: {
  list: Conversation[];
  currentId: string;
  onOpen(c: Conversation): void;
  onDelete(id: string): void;
  onNew(): void;
}) {
  const { t, lang } = useApp();
  return (
    <nav className="conversations card" aria-labelledby="conv-h">
      <h2 id="conv-h">{t('playground.conversations')}</h2>
      <button type="button" onClick={props.onNew}>
        {t('playground.newConversation')}
      </button>
      {props.list.length === 0 ? (
        <p className="hint">{t('playground.noConversations')}</p>
      ) : (
        <ul data-testid="conversations">
          {props.list.map((c) => (
            <li key={c.id} className={c.id === props.currentId ? 'current' : undefined}>
              <button
                type="button"
                className="link"
                aria-current={c.id === props.currentId ? 'true' : undefined}
                onClick={() => props.onOpen(c)}
              >
                {c.title || t('playground.untitled')}
              </button>
              <span className="hint">
                {t('playground.turns', { n: c.turns.length })} · {formatDateTime(c.updatedAt, lang)}
              </span>
              <button
                type="button"
                className="secondary small"
                aria-label={t('playground.deleteConversation', { title: c.title || t('playground.untitled') })}
                onClick={() => props.onDelete(c.id)}
              >
                {t('playground.delete')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}
