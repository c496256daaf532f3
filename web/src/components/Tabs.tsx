import type { ReactNode } from 'react';
import { useApp } from '../app-context';
import type { MessageKey } from '../i18n/en';

/** A tab list over panels of one page (ARIA tabs: each tab controls its panel, the chosen one is selected). */
export function Tabs<T extends string>(props: {
  label: string;
  tabs: readonly { id: T; label: MessageKey }[];
  current: T;
  onChange(id: T): void;
  children: ReactNode;
}) {
  const { t } = useApp();
  return (
    <>
      <div className="tabs" role="tablist" aria-label={props.label}>
        {props.tabs.map((item) => (
          <button
            key={item.id}
            type="button"
            role="tab"
            id={`tab-${item.id}`}
            aria-selected={props.current === item.id}
            aria-controls={`panel-${item.id}`}
            className="secondary"
            onClick={() => props.onChange(item.id)}
          >
            {t(item.label)}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${props.current}`} aria-labelledby={`tab-${props.current}`}>
        {props.children}
      </div>
    </>
  );
}
