import type { ReactNode } from 'react';

/** What an empty list says: why it is empty, and the next step (a link or a button). */
export function EmptyState({ text, children }: { text: string; children?: ReactNode }) {
  return (
    <div className="empty card" data-testid="empty-state">
      <p>{text}</p>
      {children && <div className="row">{children}</div>}
    </div>
  );
}
