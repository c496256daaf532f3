import { useEffect, useReducer, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { EmptyState } from '../components/EmptyState';
import { describeError } from '../lib/describe-error';
import { formatDateTime } from '../lib/format';

type Webhook = components['schemas']['Webhook'];
type CreatedWebhook = components['schemas']['CreatedWebhook'];
type Attempt = components['schemas']['WebhookAttempt'];
type EventName = Webhook['events'][number];

/** Every event an endpoint can subscribe to (the OpenAPI enum), in the order they are listed. */
const EVENTS: readonly EventName[] = ['generation.completed', 'generation.failed', 'balance.low', 'payment.succeeded', 'payment.refunded'];

/** Webhook endpoints: add (the signing secret shown once), send a test event, see recent deliveries, delete. */
export default function Webhooks() {
  const { t, lang } = useApp();
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<ReadonlySet<EventName>>(new Set(EVENTS));
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [deliveries, setDeliveries] = useState<Record<number, Attempt[]>>({});
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Bumped after a change to read the list again.
  const [hooksVersion, reloadHooks] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    let live = true;
    api
      .GET('/api/v2/webhooks')
      .then(unwrap)
      .then(
        (r) => live && setHooks(r.webhooks),
        (err: unknown) => live && setError(describeError(err, t)),
      );
    return () => {
      live = false;
    };
  }, [t, hooksVersion]);

  const run = async (action: () => Promise<void>) => {
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      setCreated(unwrap(await api.POST('/api/v2/webhooks', { body: { url: url.trim(), events: EVENTS.filter((e) => events.has(e)) } })));
      setUrl('');
      setEvents(new Set(EVENTS));
      reloadHooks();
    });
  };

  const toggle = (event: EventName, on: boolean) =>
    setEvents((current) => {
      const next = new Set(current);
      if (on) next.add(event);
      else next.delete(event);
      return next;
    });

  const showDeliveries = (hook: Webhook) =>
    run(async () => {
      const list = unwrap(await api.GET('/api/v2/webhooks/{id}/deliveries', { params: { path: { id: hook.id } } })).deliveries;
      setDeliveries((all) => ({ ...all, [hook.id]: list }));
    });

  const test = (hook: Webhook) =>
    run(async () => {
      unwrap(await api.POST('/api/v2/webhooks/{id}/test', { params: { path: { id: hook.id } } }));
      await showDeliveries(hook);
    });

  const remove = () => {
    const hook = deleting;
    setDeleting(null);
    if (hook)
      void run(async () => {
        unwrap(await api.DELETE('/api/v2/webhooks/{id}', { params: { path: { id: hook.id } } }));
        reloadHooks();
      });
  };

  return (
    <>
      <h1>{t('webhooks.title')}</h1>
      {error && <Alert kind="error">{error}</Alert>}
      {created && (
        <section className="card" aria-label={t('webhooks.secret')}>
          <Alert kind="warning">{t('webhooks.secret')}</Alert>
          <code className="secret" data-testid="webhook-secret">
            {created.secret}
          </code>
          <div>
            <button type="button" className="secondary" onClick={() => setCreated(null)}>
              {t('keys.done')}
            </button>
          </div>
        </section>
      )}
      <form className="row card" onSubmit={add}>
        <label htmlFor="wh-url">{t('webhooks.url')}</label>
        <input id="wh-url" type="url" required placeholder="https://" value={url} onChange={(e) => setUrl(e.target.value)} />
        <fieldset className="row" data-testid="webhook-events">
          <legend>{t('webhooks.events')}</legend>
          {EVENTS.map((event) => (
            <label key={event}>
              <input type="checkbox" checked={events.has(event)} onChange={(e) => toggle(event, e.target.checked)} /> <code>{event}</code>
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={events.size === 0}>
          {t('webhooks.add')}
        </button>
      </form>
      {hooks && hooks.length === 0 && <EmptyState text={t('webhooks.empty')} />}
      {hooks?.map((hook) => (
        <section key={hook.id} className="card" aria-label={hook.url} data-testid="webhook">
          <p>
            <code>{hook.url}</code> · {hook.status} · {hook.events.join(', ')}
          </p>
          <div className="row">
            <button type="button" className="secondary" onClick={() => void test(hook)}>
              {t('webhooks.test')}
            </button>
            <button type="button" className="secondary" onClick={() => void showDeliveries(hook)}>
              {t('webhooks.deliveries')}
            </button>
            <button type="button" className="danger" onClick={() => setDeleting(hook)}>
              {t('webhooks.delete')}
            </button>
          </div>
          {deliveries[hook.id]?.length === 0 && <p className="hint">{t('webhooks.noDeliveries')}</p>}
          {deliveries[hook.id] && (
            <ul className="plain">
              {deliveries[hook.id]!.map((d) => (
                <li key={d.id}>
                  {formatDateTime(d.attempted_at, lang)} · {d.event} · {d.status_code ?? d.error ?? '—'} · {d.latency_ms} ms
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}
      <ConfirmDialog
        open={deleting !== null}
        title={t('webhooks.delete')}
        confirmLabel={t('webhooks.delete')}
        cancelLabel={t('keys.cancel')}
        danger
        onConfirm={remove}
        onCancel={() => setDeleting(null)}
      >
        <p>
          <code>{deleting?.url}</code>
        </p>
      </ConfirmDialog>
    </>
  );
}
