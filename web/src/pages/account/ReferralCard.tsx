import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { describeError } from '../../lib/describe-error';

type Referral = components['schemas']['Referral'];

/** The account's invitation link with a copy button, how many joined through it and the bonus it earned. */
export function ReferralCard() {
  const { t } = useApp();
  const [referral, setReferral] = useState<Referral | null>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api
      .GET('/api/v2/user/referral')
      .then(unwrap)
      .then(
        (r) => live && setReferral(r),
        (err: unknown) => live && setError(describeError(err, t)),
      );
    return () => {
      live = false;
    };
  }, [t]);

  const copy = (link: string) =>
    void navigator.clipboard.writeText(link).then(
      () => setCopied(true),
      () => setCopied(false),
    );

  return (
    <section className="card" aria-labelledby="referral-h" data-testid="referral-card">
      <h2 id="referral-h">{t('referral.title')}</h2>
      <p>{t('referral.how')}</p>
      {error && <Alert kind="error">{error}</Alert>}
      {referral && (
        <>
          <label htmlFor="referral-link">{t('referral.link')}</label>
          <div className="row">
            <input id="referral-link" readOnly value={referral.link} onFocus={(e) => e.target.select()} />
            <button type="button" className="secondary" onClick={() => copy(referral.link)}>
              {t('referral.copy')}
            </button>
          </div>
          <p role="status" className="hint">
            {copied === true && t('referral.copied')}
            {copied === false && t('referral.copyFailed')}
          </p>
          <p className="hint">{t('referral.code', { code: referral.code })}</p>
          <dl className="facts">
            <dt>{t('referral.invited')}</dt>
            <dd data-testid="referral-invited">{referral.invited}</dd>
            <dt>{t('referral.earned')}</dt>
            <dd data-testid="referral-earned">{t('overview.tokens', { n: referral.earned_tokens })}</dd>
          </dl>
        </>
      )}
    </section>
  );
}
