import { useState } from 'react';
import { useApp } from '../../app-context';
import { Dialog } from '../../components/Dialog';
import { requestCode, type ChatBody, type CodeLanguage } from '../../lib/chat-request';
import { mediaCode, type MediaRequest } from '../../lib/media-code';

const LANGUAGES: { id: CodeLanguage; label: string }[] = [
  { id: 'curl', label: 'curl' },
  { id: 'python', label: 'Python' },
  { id: 'javascript', label: 'JavaScript' },
];

/**
 * The request the playground would send next, as curl and as the openai SDK for Python and JavaScript: a chat
 * (`body`), or a media request (`media`) through the standard clients' images, audio and videos calls.
 */
export function CodeDialog({ open, body, media, onClose }: { open: boolean; body?: ChatBody; media?: MediaRequest; onClose(): void }) {
  const { t } = useApp();
  const [language, setLanguage] = useState<CodeLanguage>('curl');
  const [copied, setCopied] = useState(false);
  const origin = window.location.origin;
  const code = media ? mediaCode(language, media, origin) : body ? requestCode(language, body, origin) : '';
  return (
    <Dialog open={open} wide title={t('playground.viewCode')} onClose={onClose}>
      <p className="hint">{media ? t('playground.mediaCodeHint') : t('playground.codeHint')}</p>
      <div className="tabs" role="tablist" aria-label={t('playground.viewCode')}>
        {LANGUAGES.map((l) => (
          <button
            key={l.id}
            type="button"
            role="tab"
            id={`code-tab-${l.id}`}
            aria-selected={language === l.id}
            aria-controls="code-panel"
            className="secondary"
            onClick={() => {
              setLanguage(l.id);
              setCopied(false);
            }}
          >
            {l.label}
          </button>
        ))}
      </div>
      <div id="code-panel" role="tabpanel" aria-labelledby={`code-tab-${language}`}>
        <pre className="code" tabIndex={0} data-testid="request-code">
          <code>{code}</code>
        </pre>
      </div>
      <div className="row end">
        <button type="button" className="secondary" onClick={() => void navigator.clipboard.writeText(code).then(() => setCopied(true))}>
          {copied ? t('keys.copied') : t('keys.copy')}
        </button>
        <button type="button" onClick={onClose}>
          {t('common.close')}
        </button>
      </div>
    </Dialog>
  );
}
