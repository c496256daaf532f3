import { useRef, useState, type FormEvent } from 'react';
import { streamChat, type ChatTurn } from '../../api/chat-stream';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { ModelSelect } from '../../components/ModelSelect';
import { describeError } from '../../lib/describe-error';
import type { ModelChoice } from '../../lib/models';

/** Chat with a text model, the answer streamed in as it is written. */
export function ChatPanel({ choices }: { choices: ModelChoice[] }) {
  const { t } = useApp();
  const [model, setModel] = useState(choices.find((c) => !c.lockedUntil)?.slug ?? '');
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [draft, setDraft] = useState('');
  const [streaming, setStreaming] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || streaming) return;
    const history: ChatTurn[] = [...turns, { role: 'user', content: text }];
    setTurns([...history, { role: 'assistant', content: '' }]);
    setDraft('');
    setError(null);
    setNote(null);
    setStreaming(true);
    abort.current = new AbortController();
    try {
      const end = await streamChat(
        model,
        history,
        (delta) => setTurns((all) => all.map((turn, i) => (i === all.length - 1 ? { ...turn, content: turn.content + delta } : turn))),
        abort.current.signal,
      );
      if (end.status === 'failed') setError(t('playground.failed', { error: end.error ?? '' }));
      else setNote(t('playground.spent', { tokens: end.tokens_spent ?? 0 }));
    } catch (err) {
      if ((err as Error).name !== 'AbortError') setError(describeError(err, t));
    } finally {
      setStreaming(false);
    }
  };

  return (
    <section aria-labelledby="chat-h">
      <h2 id="chat-h" className="visually-hidden">{t('playground.chat')}</h2>
      <ModelSelect id="chat-model" choices={choices} value={model} onChange={setModel} />
      <ol className="chat-log" aria-live="polite">
        {turns.map((turn, i) => (
          <li key={i} data-testid={`chat-${turn.role}`}>
            <span className="who-label">{turn.role === 'user' ? t('playground.you') : t('playground.assistant')}</span>
            {turn.content}
          </li>
        ))}
      </ol>
      {error && <Alert kind="error">{error}</Alert>}
      {note && <p role="status">{note}</p>}
      <form onSubmit={send}>
        <label htmlFor="chat-input">{t('playground.message')}</label>
        <textarea
          id="chat-input"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
        />
        <div className="row">
          <button type="submit" disabled={streaming || !model}>{t('playground.send')}</button>
          {streaming && <button type="button" className="secondary" onClick={() => abort.current?.abort()}>{t('playground.stop')}</button>}
        </div>
      </form>
    </section>
  );
}
