import { useEffect, useReducer, useState } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { EmptyState } from '../components/EmptyState';
import { Link } from '../components/Link';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Dialog } from '../components/Dialog';
import type { MessageKey } from '../i18n/en';
import { loadCatalog, type CatalogModel } from '../lib/catalog';
import { describeError } from '../lib/describe-error';
import { formatDate, formatDateTime, formatNumber, planAllowsApiKeys, planName } from '../lib/format';
import { KeyForm, type KeyFields } from './keys/KeyForm';

type ApiKey = components['schemas']['ApiKey'];
type CreatedKey = components['schemas']['CreatedApiKey'];

/** Spent of budget in the key's period, as a bar with the figures beside it. */
function BudgetCell({ apiKey }: { apiKey: ApiKey }) {
  const { t, lang } = useApp();
  if (apiKey.token_budget === null) return <span className="muted">{t('keys.noBudget')}</span>;
  const label = t(`keys.spent.${apiKey.budget_period}` as MessageKey, {
    spent: formatNumber(apiKey.spent, lang),
    budget: apiKey.token_budget,
  });
  const budget = Math.max(apiKey.token_budget, 1);
  return (
    <div className="budget">
      <meter
        min={0}
        max={budget}
        low={budget * 0.75}
        high={budget * 0.9}
        optimum={0}
        value={Math.min(apiKey.spent, budget)}
        aria-label={label}
      />
      <span data-testid="key-budget">{label}</span>
    </div>
  );
}

export default function Keys() {
  const { t, lang, user } = useApp();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [catalog, setCatalog] = useState<CatalogModel[]>([]);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [copied, setCopied] = useState(false);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);

  // Bumped after a change to read the list again.
  const [keysVersion, reloadKeys] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    let live = true;
    api
      .GET('/api/v2/keys')
      .then(unwrap)
      .then(
        (r) => live && setKeys(r.keys),
        (err: unknown) => live && setError(describeError(err, t)),
      );
    return () => {
      live = false;
    };
  }, [t, keysVersion]);
  useEffect(() => {
    loadCatalog().then(setCatalog, (err: unknown) => setError(describeError(err, t)));
  }, [t]);

  const save = async (fields: KeyFields) => {
    setFormError(null);
    setBusy(true);
    try {
      if (editing) {
        unwrap(await api.PATCH('/api/v2/keys/{id}', { params: { path: { id: editing.id } }, body: fields }));
        setEditing(null);
      } else {
        setCreated(unwrap(await api.POST('/api/v2/keys', { body: fields })));
        setCopied(false);
        setCreating(false);
      }
      reloadKeys();
    } catch (err) {
      setFormError(describeError(err, t));
    } finally {
      setBusy(false);
    }
  };

  const copy = async () => {
    if (!created) return;
    await navigator.clipboard.writeText(created.key).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };

  const remove = async () => {
    if (!deleting) return;
    const id = deleting.id;
    setDeleting(null);
    setError(null);
    try {
      unwrap(await api.DELETE('/api/v2/keys/{id}', { params: { path: { id } } }));
      reloadKeys();
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  const modelsOf = (key: ApiKey) => (key.models === null ? t('keys.allModels') : t('keys.someModels', { n: key.models.length }));
  const dialogOpen = creating || editing !== null;
  const closeDialog = () => {
    setCreating(false);
    setEditing(null);
    setFormError(null);
  };

  return (
    <>
      <h1>{t('keys.title')}</h1>
      {user && !planAllowsApiKeys(user.plan) && (
        <Alert kind="warning">
          <p>
            {t('keys.needVip', { plan: planName(user.plan) })} <Link href="/billing">{t('keys.upgradeHint')}</Link>
          </p>
          <p className="hint" data-testid="operator-hint">
            {t('keys.operatorHint', { id: String(user.id) })}
          </p>
        </Alert>
      )}
      {error && <Alert kind="error">{error}</Alert>}
      {created && (
        <section className="card created-key" aria-labelledby="created-h">
          <h2 id="created-h">{t('keys.createdTitle')}</h2>
          <Alert kind="warning">{t('keys.createdWarning')}</Alert>
          <div className="row">
            <code className="secret" data-testid="new-key">
              {created.key}
            </code>
            <button type="button" onClick={copy}>
              {copied ? t('keys.copied') : t('keys.copy')}
            </button>
            <button type="button" className="secondary" onClick={() => setCreated(null)}>
              {t('keys.done')}
            </button>
          </div>
        </section>
      )}
      <p>
        <button type="button" onClick={() => setCreating(true)}>
          {t('keys.create')}
        </button>
      </p>
      {keys === null && !error && (
        <p role="status" data-testid="keys-loading">
          {t('keys.loading')}
        </p>
      )}
      {keys && keys.length === 0 && <EmptyState text={t('keys.empty')} />}
      {keys && keys.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('keys.title')}>
          <table className="cards-on-phone">
            <thead>
              <tr>
                <th scope="col">{t('keys.name')}</th>
                <th scope="col">{t('keys.key')}</th>
                <th scope="col">{t('keys.budget')}</th>
                <th scope="col">{t('keys.models')}</th>
                <th scope="col">{t('keys.lastUsed')}</th>
                <th scope="col">{t('keys.expires')}</th>
                <th scope="col">{t('keys.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id} data-testid="key-row" className={key.expired ? 'expired' : undefined}>
                  <td data-label={t('keys.name')}>
                    <span data-testid="key-name">{key.name}</span>
                  </td>
                  <td data-label={t('keys.key')}>
                    <code data-testid="masked-key">{key.masked_key}</code>
                  </td>
                  <td data-label={t('keys.budget')}>
                    <BudgetCell apiKey={key} />
                  </td>
                  <td data-label={t('keys.models')} title={key.models?.join(', ')}>
                    {modelsOf(key)}
                  </td>
                  <td data-label={t('keys.lastUsed')} data-testid="last-used">
                    {key.last_used_at ? formatDateTime(key.last_used_at, lang) : t('keys.never')}
                  </td>
                  <td data-label={t('keys.expires')} data-testid="key-expiry">
                    {key.expired ? (
                      <span className="badge badge-danger">{t('keys.expired')}</span>
                    ) : key.expires_at ? (
                      formatDate(key.expires_at, lang)
                    ) : (
                      t('keys.noExpiry')
                    )}
                  </td>
                  <td className="actions" data-label={t('keys.actions')}>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`${t('keys.edit')}: ${key.name}`}
                      onClick={() => setEditing(key)}
                    >
                      {t('keys.edit')}
                    </button>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`${t('keys.delete')}: ${key.name}`}
                      onClick={() => setDeleting(key)}
                    >
                      {t('keys.delete')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Dialog
        open={dialogOpen}
        wide
        title={editing ? t('keys.editTitle', { name: editing.name }) : t('keys.createTitle')}
        onClose={closeDialog}
      >
        {formError && <Alert kind="error">{formError}</Alert>}
        <KeyForm
          key={editing?.id ?? 'new'}
          initial={editing ?? undefined}
          models={catalog}
          busy={busy}
          submitLabel={editing ? t('keys.save') : t('keys.create')}
          onSubmit={(fields) => void save(fields)}
          onCancel={closeDialog}
        />
      </Dialog>
      <ConfirmDialog
        open={deleting !== null}
        title={t('keys.delete')}
        confirmLabel={t('keys.deleteYes')}
        cancelLabel={t('keys.cancel')}
        danger
        onConfirm={remove}
        onCancel={() => setDeleting(null)}
      >
        <p>{deleting ? t('keys.deleteConfirm', { name: deleting.name }) : ''}</p>
      </ConfirmDialog>
    </>
  );
}
