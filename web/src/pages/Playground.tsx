import { useEffect, useState } from 'react';
import { api, unwrap } from '../api/client';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Tabs } from '../components/Tabs';
import type { MessageKey } from '../i18n/en';
import { describeError } from '../lib/describe-error';
import { modelChoices, type ModelInfo } from '../lib/models';
import { ChatPanel } from './playground/ChatPanel';
import { MediaPanel } from './playground/MediaPanel';

type Tab = 'chat' | 'image' | 'media';
const TABS: readonly { id: Tab; label: MessageKey }[] = [
  { id: 'chat', label: 'playground.chat' },
  { id: 'image', label: 'playground.image' },
  { id: 'media', label: 'playground.media' },
];

export default function Playground() {
  const { t, user } = useApp();
  const [tab, setTab] = useState<Tab>('chat');
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    // unwrap throws on an error answer: the catch after the then sees it too.
    void api
      .GET('/api/v2/models')
      .then((r) => setModels(unwrap(r).models))
      .catch((err: unknown) => setError(describeError(err, t)));
  }, [t]);

  const plan = user?.plan ?? 'free';
  return (
    <>
      <h1>{t('playground.title')}</h1>
      {error && <Alert kind="error">{error}</Alert>}
      {models && (
        <Tabs<Tab> label={t('playground.title')} tabs={TABS} current={tab} onChange={setTab}>
          {tab === 'chat' && <ChatPanel choices={modelChoices(models, ['text'], plan)} models={models} />}
          {tab === 'image' && <MediaPanel key="image" kind="image" models={models} choices={modelChoices(models, ['image'], plan)} />}
          {tab === 'media' && (
            <MediaPanel key="media" kind="media" models={models} choices={modelChoices(models, ['video', 'music'], plan)} />
          )}
        </Tabs>
      )}
    </>
  );
}
