import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Tabs } from '../components/Tabs';
import type { MessageKey } from '../i18n/en';
import { Refusals } from './request-log/Refusals';
import { Requests } from './request-log/Requests';

type ApiKey = components['schemas']['ApiKey'];
type Tab = 'requests' | 'refused';

const TABS: readonly { id: Tab; label: MessageKey }[] = [
  { id: 'requests', label: 'log.tabRequests' },
  { id: 'refused', label: 'log.tabRefused' },
];

/** Usage: every request the account made, and the calls that were refused before anything ran. */
export default function RequestLog() {
  const { t } = useApp();
  const [tab, setTab] = useState<Tab>('requests');
  const [keys, setKeys] = useState<ApiKey[]>([]);
  useEffect(() => {
    api.GET('/api/v2/keys').then(
      (r) => setKeys(r.data?.keys ?? []),
      () => setKeys([]),
    );
  }, []);
  return (
    <>
      <h1>{t('log.title')}</h1>
      <Tabs<Tab> label={t('log.title')} tabs={TABS} current={tab} onChange={setTab}>
        {tab === 'requests' ? <Requests keys={keys} /> : <Refusals keys={keys} />}
      </Tabs>
    </>
  );
}
