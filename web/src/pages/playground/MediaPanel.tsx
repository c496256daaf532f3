import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import type { components, paths } from '../../api/schema';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { GenerationResult } from '../../components/GenerationResult';
import { CodeDialog } from './CodeDialog';
import { ModelSelect } from '../../components/ModelSelect';
import { describeError } from '../../lib/describe-error';
import { imageOptions, type ModelChoice, type ModelInfo } from '../../lib/models';
import { pollUntil } from '../../lib/poll';

type Generation = components['schemas']['Generation'];
type GenerateBody = paths['/api/v2/generate']['post']['requestBody']['content']['application/json'];

const POLL_MS = 3000;

type ImageFormat = 'webp' | 'png' | 'jpeg';
function asImageFormat(value: string | undefined): ImageFormat {
  return value === 'png' || value === 'jpeg' ? value : 'webp';
}

/**
 * Image, video or music generation: the price comes first (calculate-price with the same body), then the
 * confirmed request; a pending result is polled until it is ready.
 */
export function MediaPanel({ kind, choices, models }: { kind: 'image' | 'media'; choices: ModelChoice[]; models: ModelInfo[] }) {
  const { t } = useApp();
  const [model, setModel] = useState(choices.find((c) => !c.lockedUntil)?.slug ?? '');
  const info = models.find((m) => m.slug === model);
  const { sizes, formats } = imageOptions(info);
  const [prompt, setPrompt] = useState('');
  const [size, setSize] = useState(sizes[0] ?? '1024x1024');
  const [format, setFormat] = useState<ImageFormat>(asImageFormat(formats[0]));
  const [duration, setDuration] = useState(30);
  // The price is kept with the request it was quoted for: a changed request needs a new price before it can be confirmed.
  const [quoted, setQuoted] = useState<{ request: string; tokens: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Generation | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [showCode, setShowCode] = useState(false);
  const polling = useRef<AbortController | null>(null);

  useEffect(() => () => polling.current?.abort(), []);

  // Another model starts from its own default size and format.
  const chooseModel = (slug: string) => {
    const options = imageOptions(models.find((m) => m.slug === slug));
    setModel(slug);
    setSize(options.sizes[0] ?? '1024x1024');
    setFormat(asImageFormat(options.formats[0]));
  };

  const body = (): GenerateBody => {
    if (kind === 'image') return { model, prompt, size, format };
    return info?.category === 'music' ? { model, prompt, duration } : { model, prompt };
  };
  const request = JSON.stringify(body());
  const price = quoted?.request === request ? quoted.tokens : null;

  const quote = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const { model: _slug, ...rest } = body();
      const q = unwrap(await api.POST('/api/v2/models/{slug}/calculate-price', { params: { path: { slug: model } }, body: rest }));
      setQuoted({ request, tokens: q.tokens });
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  const generate = async () => {
    setError(null);
    setBusy(true);
    setResult(null);
    polling.current?.abort();
    try {
      let g = unwrap(await api.POST('/api/v2/generate', { body: body() }));
      setResult(g);
      setQuoted(null);
      if (g.status === 'pending') {
        polling.current = new AbortController();
        await pollUntil(
          async () => {
            g = unwrap(await api.GET('/api/v2/generate/{id}', { params: { path: { id: String(g.id) } } }));
            setResult(g);
            return g.status !== 'pending';
          },
          POLL_MS,
          polling.current.signal,
        );
      }
    } catch (err) {
      setError(describeError(err, t));
    } finally {
      setBusy(false);
    }
  };

  const prefix = kind === 'image' ? 'img' : 'media';
  return (
    <section aria-labelledby={`${prefix}-h`}>
      <h2 id={`${prefix}-h`} className="visually-hidden">
        {kind === 'image' ? t('playground.image') : t('playground.media')}
      </h2>
      <form onSubmit={quote}>
        <ModelSelect id={`${prefix}-model`} choices={choices} value={model} onChange={chooseModel} />
        <label htmlFor={`${prefix}-prompt`}>{t('playground.prompt')}</label>
        <textarea id={`${prefix}-prompt`} required value={prompt} onChange={(e) => setPrompt(e.target.value)} />
        {kind === 'image' && (
          <div className="row">
            <div>
              <label htmlFor="img-size">{t('playground.size')}</label>
              <select id="img-size" value={size} onChange={(e) => setSize(e.target.value)}>
                {sizes.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor="img-format">{t('playground.format')}</label>
              <select id="img-format" value={format} onChange={(e) => setFormat(asImageFormat(e.target.value))}>
                {formats.map((f) => (
                  <option key={f} value={f}>
                    {f}
                  </option>
                ))}
              </select>
            </div>
          </div>
        )}
        {info?.category === 'music' && (
          <>
            <label htmlFor="media-duration">{t('playground.duration')}</label>
            <input
              id="media-duration"
              type="number"
              min={15}
              max={120}
              value={duration}
              onChange={(e) => setDuration(Number(e.target.value))}
            />
          </>
        )}
        <div className="row">
          <button type="submit" className="secondary" disabled={!model || !prompt.trim() || busy}>
            {t('playground.checkPrice')}
          </button>
          {price !== null && (
            <>
              <span role="status" data-testid="price">
                {t('playground.price', { tokens: price })}
              </span>
              <button type="button" onClick={() => void generate()} disabled={busy}>
                {t('playground.confirm', { tokens: price })}
              </button>
            </>
          )}
          <button type="button" className="secondary" disabled={!model} onClick={() => setShowCode(true)}>
            {t('playground.viewCode')}
          </button>
        </div>
      </form>
      <CodeDialog
        open={showCode}
        media={{
          category: info?.category ?? kind,
          model,
          prompt: prompt || t('playground.codePlaceholder'),
          ...(kind === 'image' ? { size, format } : {}),
          ...(info?.category === 'music' ? { duration } : {}),
        }}
        onClose={() => setShowCode(false)}
      />
      {error && <Alert kind="error">{error}</Alert>}
      {busy && !result && <p role="status">{t('playground.working')}</p>}
      {result && (
        <div className="card" data-testid="playground-result">
          {result.status === 'pending' && <p role="status">{t('playground.pending', { seconds: result.eta_seconds ?? '?' })}</p>}
          {result.status === 'failed' && <Alert kind="error">{t('playground.failed', { error: result.error ?? '' })}</Alert>}
          {result.status === 'completed' && (
            <>
              <p role="status">{t('playground.spent', { tokens: result.tokens_spent })}</p>
              <GenerationResult generation={result} />
            </>
          )}
        </div>
      )}
    </section>
  );
}
