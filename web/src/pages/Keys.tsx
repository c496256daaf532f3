import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { describeError } from '../lib/describe-error';
import { formatDateTime, planAllowsApiKeys, planName } from '../lib/format';

type ApiKey = components['schemas']['ApiKey'];
type CreatedKey = components['schemas']['CreatedApiKey'];

export function Keys() {
  const { t, lang, user } = useApp();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [copied, setCopied] = useState(false);
  const [renaming, setRenaming] = useState<{ id: number; name: string } | null>(null);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setKeys(unwrap(await api.GET('/api/v2/keys')).keys);
    } catch (err) {
      setError(describeError(err, t));
    }
  }, [t]);
  useEffect(() => void load(), [load]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      setCreated(unwrap(await api.POST('/api/v2/keys', { body: { name: name.trim() } })));
      setCopied(false);
      setName('');
      await load();
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  const copy = async () => {
    if (!created) return;
    await navigator.clipboard.writeText(created.key).then(() => setCopied(true), () => setCopied(false));
  };

  const rename = async (event: FormEvent) => {
    event.preventDefault();
    if (!renaming) return;
    setError(null);
    try {
      unwrap(await api.PATCH('/api/v2/keys/{id}', { params: { path: { id: renaming.id } }, body: { name: renaming.name.trim() } }));
      setRenaming(null);
      await load();
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  const remove = async () => {
    if (!deleting) return;
    const id = deleting.id;
    setDeleting(null);
    setError(null);
    try {
      unwrap(await api.DELETE('/api/v2/keys/{id}', { params: { path: { id } } }));
      await load();
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  return (
    <>
      <h1>{t('keys.title')}</h1>
      {user && !planAllowsApiKeys(user.plan) && <Alert kind="warning">{t('keys.needVip', { plan: planName(user.plan) })}</Alert>}
      {error && <Alert kind="error">{error}</Alert>}
      {created && (
        <section className="card created-key" aria-labelledby="created-h">
          <h2 id="created-h">{t('keys.createdTitle')}</h2>
          <Alert kind="warning">{t('keys.createdWarning')}</Alert>
          <div className="row">
            <code className="secret" data-testid="new-key">{created.key}</code>
            <button type="button" onClick={copy}>{copied ? t('keys.copied') : t('keys.copy')}</button>
            <button type="button" className="secondary" onClick={() => setCreated(null)}>{t('keys.done')}</button>
          </div>
        </section>
      )}
      <form className="row card" onSubmit={create}>
        <label htmlFor="key-name">{t('keys.newName')}</label>
        <input id="key-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={!name.trim()}>{t('keys.create')}</button>
      </form>
      {keys && keys.length === 0 && <p>{t('keys.empty')}</p>}
      {keys && keys.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('keys.name')}</th>
                <th scope="col">{t('keys.key')}</th>
                <th scope="col">{t('keys.created')}</th>
                <th scope="col">{t('keys.lastUsed')}</th>
                <th scope="col">{t('keys.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id} data-testid="key-row">
                  <td>
                    {renaming?.id === key.id ? (
                      <form className="row" onSubmit={rename}>
                        <label className="visually-hidden" htmlFor={`rename-${key.id}`}>{t('keys.renameLabel', { name: key.name })}</label>
                        <input id={`rename-${key.id}`} required maxLength={100} autoFocus value={renaming.name} onChange={(e) => setRenaming({ id: key.id, name: e.target.value })} />
                        <button type="submit">{t('keys.save')}</button>
                        <button type="button" className="secondary" onClick={() => setRenaming(null)}>{t('keys.cancel')}</button>
                      </form>
                    ) : (
                      <span data-testid="key-name">{key.name}</span>
                    )}
                  </td>
                  <td><code data-testid="masked-key">{key.masked_key}</code></td>
                  <td>{formatDateTime(key.created_at, lang)}</td>
                  <td data-testid="last-used">{key.last_used_at ? formatDateTime(key.last_used_at, lang) : t('keys.never')}</td>
                  <td className="actions">
                    <button type="button" className="secondary" aria-label={`${t('keys.rename')}: ${key.name}`} onClick={() => setRenaming({ id: key.id, name: key.name })}>{t('keys.rename')}</button>
                    <button type="button" className="danger" aria-label={`${t('keys.delete')}: ${key.name}`} onClick={() => setDeleting(key)}>{t('keys.delete')}</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
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
