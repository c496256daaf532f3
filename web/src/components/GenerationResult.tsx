import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { resultKind } from '../lib/models';
import { Markdown } from './Markdown';

type Generation = components['schemas']['Generation'];

/** A generation's result: a picture, an audio or video player, or its text (Markdown, rendered safely). */
export function GenerationResult({ generation, compact = false }: { generation: Generation; compact?: boolean }) {
  const { t } = useApp();
  const kind = resultKind(generation.category, generation.result_url, generation.result_text);
  const label = `${generation.model_slug} #${generation.id}`;
  switch (kind) {
    case 'image':
      return <img className="result-img" src={generation.result_url!} alt={label} loading="lazy" data-testid="result-image" />;
    case 'video':
      return <video src={generation.result_url!} controls preload="metadata" aria-label={label} data-testid="result-video" />;
    case 'audio':
      return <audio src={generation.result_url!} controls preload="none" aria-label={label} data-testid="result-audio" />;
    case 'text':
      return (
        <div className={compact ? 'text-result' : 'text-result full'} data-testid="result-text">
          <Markdown text={generation.result_text ?? ''} />
        </div>
      );
    default:
      return generation.result_url ? <a href={generation.result_url}>{t('history.open')}</a> : null;
  }
}
