import { useState } from 'react';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import type { MessageKey } from '../i18n/en';
import { formatDateTime, formatNumber } from '../lib/format';
import { downloadName, downloadUrl, saveFile } from '../lib/downloads';
import { GenerationResult } from './GenerationResult';

export type HistoryEntry = components['schemas']['HistoryEntry'];

/**
 * Everything the service kept of one request: what was asked, what came back (the files to download), what it
 * cost in tkn and in the model's own tokens, how long it took and why it failed. Delete asks once more first.
 */
export function EntryDetails(props: { entry: HistoryEntry; keyName?: string | null; onDelete?: () => Promise<void> }) {
  const { t, lang } = useApp();
  const { entry } = props;
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const deletable = props.onDelete && entry.status !== 'pending' && !entry.deleted_at;
  const text = entry.result_text;

  const row = (label: MessageKey, value: string, testId?: string) => (
    <>
      <dt>{t(label)}</dt>
      <dd data-testid={testId}>{value}</dd>
    </>
  );
  return (
    <div className="entry" data-testid="entry-details">
      <dl className="split entry-facts">
        {row('entry.time', formatDateTime(entry.created_at, lang))}
        {row('entry.model', entry.model_slug)}
        {row('entry.door', `${t(`door.${entry.door}` as MessageKey)}${props.keyName ? ` · ${props.keyName}` : ''}`)}
        {row('entry.status', t(`history.status.${entry.status}` as MessageKey))}
        {row('entry.cost', t('history.tokens', { n: entry.tokens_spent }), 'entry-cost')}
        {entry.usage &&
          row(
            'entry.modelTokens',
            t('entry.modelTokensValue', {
              input: formatNumber(entry.usage.input_tokens, lang),
              output: formatNumber(entry.usage.output_tokens, lang),
              cached: formatNumber(entry.usage.cached_tokens, lang),
            }),
            'entry-model-tokens',
          )}
        {row(
          'entry.latency',
          entry.processing_ms === null ? '—' : t('log.ms', { ms: formatNumber(entry.processing_ms, lang) }),
          'entry-latency',
        )}
      </dl>
      {entry.error && (
        <section aria-label={t('entry.error')}>
          <h3>{t('entry.error')}</h3>
          <p className="status-failed" data-testid="entry-error">
            {entry.error}
          </p>
        </section>
      )}
      {entry.deleted_at ? (
        <p className="hint">{t('entry.deletedNote', { date: formatDateTime(entry.deleted_at, lang) })}</p>
      ) : (
        <>
          <h3>{t('entry.prompt')}</h3>
          <p className="user-text" data-testid="entry-prompt">
            {entry.prompt ?? t('entry.noPrompt')}
          </p>
          <h3>{t('entry.output')}</h3>
          {entry.result_url || entry.result_text ? <GenerationResult generation={entry} /> : <p className="hint">{t('entry.noOutput')}</p>}
          {(entry.result_url || text) && (
            <>
              <h3>{t('entry.files')}</h3>
              <ul className="plain files">
                {entry.result_url && (
                  <li>
                    <a className="button secondary" href={downloadUrl(entry.result_url, downloadName(entry, entry.result_url))}>
                      {t('history.download')}
                    </a>{' '}
                    <code>{downloadName(entry, entry.result_url)}</code>
                  </li>
                )}
                {text && (
                  <li>
                    <button type="button" className="secondary" onClick={() => saveFile(downloadName(entry, null), text)}>
                      {t('history.download')}
                    </button>{' '}
                    <code>{downloadName(entry, null)}</code>
                  </li>
                )}
              </ul>
            </>
          )}
        </>
      )}
      {deletable && !confirming && (
        <div className="row end">
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            {t('history.delete')}
          </button>
        </div>
      )}
      {deletable && confirming && (
        <div className="confirm card" role="group" aria-label={t('history.delete')}>
          <p>{t('history.deleteConfirm')}</p>
          <div className="row end">
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              {t('keys.cancel')}
            </button>
            <button
              type="button"
              className="danger"
              disabled={busy}
              onClick={() => {
                setBusy(true);
                void props.onDelete!().finally(() => setBusy(false));
              }}
            >
              {t('history.deleteYes')}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
