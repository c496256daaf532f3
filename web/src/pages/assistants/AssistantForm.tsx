import { useState, type FormEvent } from 'react';
import type { components } from '../../api/schema';
import { useApp } from '../../app-context';
import { ModelSelect } from '../../components/ModelSelect';
import type { ModelChoice } from '../../lib/models';

type Assistant = components['schemas']['OwnAssistant'];

export interface AssistantDraft {
  name: string;
  description: string;
  model_slug: string;
  system_prompt: string;
}

/** The create and edit form of an assistant: name, what it is for, its text model and its instructions. */
export function AssistantForm(props: {
  initial: Assistant | null;
  choices: ModelChoice[];
  onSave(draft: AssistantDraft): Promise<boolean>;
  onCancel(): void;
}) {
  const { t } = useApp();
  const first = props.choices.find((c) => !c.lockedUntil)?.slug ?? '';
  const [name, setName] = useState(props.initial?.name ?? '');
  const [description, setDescription] = useState(props.initial?.description ?? '');
  const [model, setModel] = useState(props.initial?.model_slug ?? '');
  const [prompt, setPrompt] = useState(props.initial?.system_prompt ?? '');
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    await props.onSave({ name: name.trim(), description: description.trim(), model_slug: model || first, system_prompt: prompt });
    setBusy(false);
  };

  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-labelledby="assistant-form-h">
      <h2 id="assistant-form-h">{props.initial ? t('assistants.editTitle', { name: props.initial.name }) : t('assistants.new')}</h2>
      <label htmlFor="assistant-name">{t('assistants.name')}</label>
      <input id="assistant-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="assistant-description">{t('assistants.description')}</label>
      <input
        id="assistant-description"
        maxLength={500}
        value={description}
        aria-describedby="assistant-description-hint"
        onChange={(e) => setDescription(e.target.value)}
      />
      <p id="assistant-description-hint" className="hint">
        {t('assistants.descriptionHint')}
      </p>
      <ModelSelect id="assistant-model" choices={props.choices} value={model || first} onChange={setModel} />
      <label htmlFor="assistant-prompt">{t('assistants.prompt')}</label>
      <textarea
        id="assistant-prompt"
        maxLength={8000}
        value={prompt}
        aria-describedby="assistant-prompt-hint"
        onChange={(e) => setPrompt(e.target.value)}
      />
      <p id="assistant-prompt-hint" className="hint">
        {t('assistants.promptHint')}
      </p>
      <div className="row">
        <button type="submit" disabled={busy || !name.trim() || !(model || first)}>
          {props.initial ? t('assistants.save') : t('assistants.create')}
        </button>
        <button type="button" className="secondary" onClick={props.onCancel}>
          {t('keys.cancel')}
        </button>
      </div>
    </form>
  );
}
