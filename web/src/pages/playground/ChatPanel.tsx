import { useEffect, useRef, useState, type FormEvent } from 'react';
import { streamChat } from '../../api/chat-stream';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { Markdown } from '../../components/Markdown';
import { ModelSelect } from '../../components/ModelSelect';
import { chatBody, type ChatSettings, type Turn } from '../../lib/chat-request';
import { loadConversations, newConversation, saveConversations, titleOf, type Conversation } from '../../lib/conversations';
import { describeError } from '../../lib/describe-error';
import { ApiFailure } from '../../lib/api-error';
import type { ModelChoice, ModelInfo } from '../../lib/models';
import { CodeDialog } from './CodeDialog';
import { Conversations } from './Conversations';

const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('could not read the file'));
    reader.readAsDataURL(file);
  });
}

function numberOrNull(text: string): number | null {
  return text.trim() === '' || Number.isNaN(Number(text)) ? null : Number(text);
}

interface Chats {
  /** Kept conversations, newest first. */
  list: Conversation[];
  current: Conversation;
}

/** The open conversation is at the top of the list once it has a turn, and not in it without one. */
function withCurrent(list: Conversation[], current: Conversation): Chats {
  const others = list.filter((c) => c.id !== current.id);
  return { list: current.turns.length > 0 ? [current, ...others] : others, current };
}

/**
 * Chat with a text model through /v1/chat/completions, the answer streamed in and rendered as Markdown: a system
 * prompt, temperature and max tokens, images for vision models, "View code" for the same request, and the
 * conversations kept in this browser.
 */
export function ChatPanel({ choices, models }: { choices: ModelChoice[]; models: ModelInfo[] }) {
  const { t, user } = useApp();
  const userId = user?.id ?? 0;
  const firstModel = choices.find((c) => !c.lockedUntil)?.slug ?? '';
  const defaults: ChatSettings = { model: firstModel, system: '', temperature: null, maxTokens: null };
  const [{ list, current }, setChats] = useState<Chats>(() => {
    const kept = loadConversations(userId);
    return { list: kept, current: kept[0] ?? newConversation(defaults) };
  });
  const setCurrent = (change: (c: Conversation) => Conversation) => setChats((s) => withCurrent(s.list, change(s.current)));
  const [temperature, setTemperature] = useState(current.temperature === null ? '' : String(current.temperature));
  const [maxTokens, setMaxTokens] = useState(current.maxTokens === null ? '' : String(current.maxTokens));
  const [apiKey, setApiKey] = useState('');
  const [draft, setDraft] = useState('');
  const [images, setImages] = useState<string[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [showCode, setShowCode] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  const info = models.find((m) => m.slug === current.model);
  const vision = info?.config.supports_vision === true;
  const settings: ChatSettings = {
    model: current.model,
    system: current.system,
    temperature: numberOrNull(temperature),
    maxTokens: numberOrNull(maxTokens),
  };

  // Every change is kept in this browser.
  useEffect(() => saveConversations(userId, list), [list, userId]);

  const update = (patch: Partial<Conversation>) => setCurrent((c) => ({ ...c, ...patch, updatedAt: new Date().toISOString() }));

  const open = (conversation: Conversation) => {
    abort.current?.abort();
    setCurrent(() => conversation);
    setTemperature(conversation.temperature === null ? '' : String(conversation.temperature));
    setMaxTokens(conversation.maxTokens === null ? '' : String(conversation.maxTokens));
    setImages([]);
    setError(null);
    setNote(null);
  };

  const remove = (id: string) => {
    const next = list.filter((c) => c.id !== id);
    if (current.id === id) open(next[0] ?? newConversation({ ...defaults, model: current.model, system: current.system }));
    setChats((s) => ({ ...s, list: s.list.filter((c) => c.id !== id) }));
  };

  const attach = async (files: FileList | null) => {
    setError(null);
    for (const file of Array.from(files ?? [])) {
      if (file.size > MAX_IMAGE_BYTES) {
        setError(t('playground.imageTooLarge', { name: file.name }));
        continue;
      }
      const url = await readAsDataUrl(file);
      setImages((prev) => [...prev, url]);
    }
  };

  const pending: Turn | null = draft.trim()
    ? { role: 'user', content: draft.trim(), ...(vision && images.length ? { images } : {}) }
    : null;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!pending || streaming) return;
    const history = [...current.turns, pending];
    const body = chatBody(settings, history);
    update({ ...settings, title: current.title || titleOf(pending.content), turns: [...history, { role: 'assistant', content: '' }] });
    setDraft('');
    setImages([]);
    setError(null);
    setNote(null);
    setStreaming(true);
    abort.current = new AbortController();
    const appendDelta = (delta: string) =>
      setCurrent((c) => ({
        ...c,
        turns: c.turns.map((turn, i) => (i === c.turns.length - 1 ? { ...turn, content: turn.content + delta } : turn)),
      }));
    try {
      const end = await streamChat(body, apiKey.trim() || null, appendDelta, abort.current.signal);
      if (end.status === 'failed')
        setError(
          end.code
            ? describeError(new ApiFailure(502, { error: end.code, message: end.error ?? '' }), t)
            : t('playground.failed', { error: end.error ?? '' }),
        );
      else
        setNote(
          end.usage
            ? t('playground.spentUsage', { tokens: end.tokens_spent ?? 0, input: end.usage.input, output: end.usage.output })
            : t('playground.spent', { tokens: end.tokens_spent ?? 0 }),
        );
    } catch (err) {
      if ((err as Error).name !== 'AbortError') {
        setError(describeError(err, t));
        // The request was refused before any answer: the question goes back to the input, not into the log.
        setCurrent((c) => ({ ...c, turns: history.slice(0, -1) }));
        setDraft(pending.content);
      }
    } finally {
      setStreaming(false);
    }
  };

  const codeTurns = [...current.turns, pending ?? { role: 'user' as const, content: t('playground.codePlaceholder') }];

  return (
    <div className="playground">
      <section aria-labelledby="chat-h" className="chat">
        <h2 id="chat-h" className="visually-hidden">
          {t('playground.chat')}
        </h2>
        {current.turns.length === 0 && (
          <p className="hint empty-chat" data-testid="empty-state">
            {t('playground.emptyChat')}
          </p>
        )}
        <ol className="chat-log" aria-live="polite">
          {current.turns.map((turn, i) => (
            <li key={i} data-testid={`chat-${turn.role}`}>
              <span className="who-label">{turn.role === 'user' ? t('playground.you') : t('playground.assistant')}</span>
              {turn.role === 'assistant' ? <Markdown text={turn.content} /> : <span className="user-text">{turn.content}</span>}
              {turn.images && turn.images.length > 0 && (
                <div className="thumbs">
                  {turn.images.map((src, j) => (
                    <img key={j} className="thumb" src={src} alt={t('playground.attached', { n: j + 1 })} />
                  ))}
                </div>
              )}
            </li>
          ))}
        </ol>
        {error && <Alert kind="error">{error}</Alert>}
        {note && <p role="status">{note}</p>}
        <form className="composer" onSubmit={send}>
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
          {vision && (
            <div className="attach">
              <label htmlFor="chat-image">{t('playground.attachImage')}</label>
              <input
                id="chat-image"
                type="file"
                accept="image/png,image/jpeg,image/webp,image/gif"
                multiple
                onChange={(e) => void attach(e.target.files).then(() => (e.target.value = ''))}
              />
              {images.length > 0 && (
                <ul className="thumbs">
                  {images.map((src, i) => (
                    <li key={i}>
                      <img className="thumb" src={src} alt={t('playground.attached', { n: i + 1 })} data-testid="attached-image" />
                      <button type="button" className="secondary" onClick={() => setImages((all) => all.filter((_, j) => j !== i))}>
                        {t('playground.removeImage', { n: i + 1 })}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
          <div className="row">
            <button type="submit" disabled={streaming || !current.model || !draft.trim()}>
              {t('playground.send')}
            </button>
            {streaming && (
              <button type="button" className="secondary" onClick={() => abort.current?.abort()}>
                {t('playground.stop')}
              </button>
            )}
            <button type="button" className="secondary" onClick={() => setShowCode(true)} disabled={!current.model}>
              {t('playground.viewCode')}
            </button>
          </div>
        </form>
      </section>
      <aside className="card chat-settings" aria-labelledby="settings-h">
        <h2 id="settings-h">{t('playground.settings')}</h2>
        <ModelSelect id="chat-model" choices={choices} value={current.model} onChange={(model) => update({ model })} />
        <label htmlFor="chat-system">{t('playground.system')}</label>
        <textarea
          id="chat-system"
          value={current.system}
          placeholder={t('playground.systemHint')}
          onChange={(e) => update({ system: e.target.value })}
        />
        <div className="row fields">
          <div>
            <label htmlFor="chat-temperature">{t('playground.temperature')}</label>
            <input
              id="chat-temperature"
              type="number"
              min={0}
              max={2}
              step={0.1}
              placeholder={t('playground.default')}
              value={temperature}
              onChange={(e) => setTemperature(e.target.value)}
            />
          </div>
          <div>
            <label htmlFor="chat-max-tokens">{t('playground.maxTokens')}</label>
            <input
              id="chat-max-tokens"
              type="number"
              min={1}
              step={1}
              placeholder={t('playground.default')}
              value={maxTokens}
              onChange={(e) => setMaxTokens(e.target.value)}
            />
          </div>
        </div>
        <label htmlFor="chat-api-key">{t('playground.apiKey')}</label>
        <input
          id="chat-api-key"
          type="password"
          autoComplete="off"
          aria-describedby="chat-api-key-hint"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
        />
        <p id="chat-api-key-hint" className="hint">
          {t('playground.apiKeyHint')}
        </p>
      </aside>
      <Conversations
        list={list}
        currentId={current.id}
        onOpen={open}
        onDelete={remove}
        onNew={() => open(newConversation({ ...defaults, model: current.model, system: current.system }))}
      />
      <CodeDialog open={showCode} body={chatBody(settings, codeTurns)} onClose={() => setShowCode(false)} />
    </div>
  );
}
