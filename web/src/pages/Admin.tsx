import { useState } from 'react';
import { useApp } from '../app-context';
import { Tabs } from '../components/Tabs';
import type { MessageKey } from '../i18n/en';
import { Audit } from './admin/Audit';
import { Broadcasts } from './admin/Broadcasts';
import { Catalog } from './admin/Catalog';
import { Money } from './admin/Money';
import { Promos } from './admin/Promos';
import { Users } from './admin/Users';

type Tab = 'users' | 'money' | 'catalog' | 'broadcasts' | 'promo' | 'audit';

const TABS: readonly { id: Tab; label: MessageKey }[] = [
  { id: 'users', label: 'nav.admin.users' },
  { id: 'money', label: 'nav.admin.money' },
  { id: 'catalog', label: 'nav.admin.catalog' },
  { id: 'broadcasts', label: 'nav.admin.broadcasts' },
  { id: 'promo', label: 'nav.admin.promo' },
  { id: 'audit', label: 'nav.admin.audit' },
];

const isTab = (v: string | null): v is Tab => TABS.some((t) => t.id === v);

/** The operator's console (admins only): users, money, catalog, broadcasts, promo codes and the audit log. */
export default function Admin() {
  const { t } = useApp();
  const initial = new URLSearchParams(window.location.search).get('tab');
  const [tab, setTab] = useState<Tab>(isTab(initial) ? initial : 'users');
  const choose = (next: Tab) => {
    setTab(next);
    window.history.replaceState(null, '', `/admin?tab=${next}`);
  };
  const Panel = { users: Users, money: Money, catalog: Catalog, broadcasts: Broadcasts, promo: Promos, audit: Audit }[tab];
  return (
    <>
      <h1>{t('nav.admin')}</h1>
      <Tabs<Tab> label={t('nav.admin')} tabs={TABS} current={tab} onChange={choose}>
        <Panel />
      </Tabs>
    </>
  );
}
