import { useEffect, useReducer, useState } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { EmptyState } from '../components/EmptyState';
import { loadCatalog } from '../lib/catalog';
import { describeError } from '../lib/describe-error';
import { modelChoices, type ModelChoice } from '../lib/models';
import { AssistantForm, type AssistantDraft } from './assistants/AssistantForm';

type Assistant = components['schemas']['OwnAssistant'];

/** The account's assistants (the personas the bot's /mode offers): list, create, edit, delete. */
export default function Assistants() {
  const { t, user } = useApp();
  const [assistants, setAssistants] = useState<Assistant[] | null>(null);
  const [choices, setChoices] = useState<ModelChoice[]>([]);
  // null: no form open; 'new': the create form; an assistant: its edit form.
  const [editing, setEditing] = useState<Assistant | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Assistant | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, reload] = useReducer((n: number) => n + 1, 0);

  useEffect(() => {
    let live = true;
    api
      .GET('/api/v2/assistants/user')
      .then(unwrap)
      .then(
        (list) => live && setAssistants(list),
        (err: unknown) => live && setError(describeError(err, t)),
      );
    return () => {
      live = false;
    };
  }, [t, version]);

  useEffect(() => {
    void loadCatalog().then(
      (models) => setChoices(modelChoices(models, ['text'], user?.plan ?? 'free')),
      (err: unknown) => setError(describeError(err, t)),
    );
  }, [t, user?.plan]);

  const run = async (action: () => Promise<void>): Promise<boolean> => {
    setError(null);
    setNotice(null);
    try {
      await action();
      return true;
    } catch (err) {
      setError(describeError(err, t));
      return false;
    }
  };

  const save = (draft: AssistantDraft) =>
    run(async () => {
      const body = draft;
      if (editing === 'new') {
        unwrap(await api.POST('/api/v2/assistants', { body }));
        setNotice(t('assistants.created', { name: draft.name }));
      } else if (editing) {
        unwrap(await api.PATCH('/api/v2/assistants/{id}', { params: { path: { id: editing.id } }, body }));
        setNotice(t('assistants.saved', { name: draft.name }));
      }
      setEditing(null);
      reload();
    });

  const remove = () => {
    const target = deleting;
    setDeleting(null);
    if (target)
      void run(async () => {
        unwrap(await api.DELETE('/api/v2/assistants/{id}', { params: { path: { id: target.id } } }));
        setNotice(t('assistants.deleted', { name: target.name }));
        reload();
      });
  };

  return (
    <>
      <h1>{t('assistants.title')}</h1>
      <p className="hint">{t('assistants.intro')}</p>
      {notice && <Alert kind="success">{notice}</Alert>}
      {error && <Alert kind="error">{error}</Alert>}
      {editing === null ? (
        <button type="button" onClick={() => setEditing('new')}>
          {t('assistants.new')}
        </button>
      ) : (
        <AssistantForm
          key={editing === 'new' ? 'new' : editing.id}
          initial={editing === 'new' ? null : editing}
          choices={choices}
          onSave={save}
          onCancel={() => setEditing(null)}
        />
      )}
      {assistants && assistants.length === 0 && <EmptyState text={t('assistants.empty')} />}
      {assistants && assistants.length > 0 && (
        <ul className="cards plain">
          {assistants.map((a) => (
            <li key={a.id} className="card" data-testid="assistant">
              <h2>{a.name}</h2>
              {a.description && <p>{a.description}</p>}
              <p className="hint">
                {t('assistants.modelOf', { model: choices.find((c) => c.slug === a.model_slug)?.name ?? a.model_slug })}
              </p>
              <div className="row">
                <button type="button" className="secondary" aria-label={`${t('assistants.edit')}: ${a.name}`} onClick={() => setEditing(a)}>
                  {t('assistants.edit')}
                </button>
                <button type="button" className="danger" aria-label={`${t('assistants.delete')}: ${a.name}`} onClick={() => setDeleting(a)}>
                  {t('assistants.delete')}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('assistants.deleteTitle', { name: deleting?.name ?? '' })}
        confirmLabel={t('assistants.delete')}
        cancelLabel={t('keys.cancel')}
        danger
        onConfirm={remove}
        onCancel={() => setDeleting(null)}
      >
        <p>{t('assistants.deleteBody')}</p>
      </ConfirmDialog>
    </>
  );
}
