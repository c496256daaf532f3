import { useEffect, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { describeError } from '../lib/describe-error';

type Settings = components['schemas']['Settings'];

/** Language (the same setting the bot uses), image format, notifications, name and picture. */
export default function SettingsPage() {
  const { t, user, setLang, reloadUser } = useApp();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [name, setName] = useState(user?.name ?? '');
  const [avatar, setAvatar] = useState(user?.avatar_url ?? '');
  const [saved, setSaved] = useState<'prefs' | 'profile' | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    // unwrap throws on an error answer: the catch after the then sees it too.
    void api
      .GET('/api/v2/user/settings')
      .then((r) => setSettings(unwrap(r)))
      .catch((err: unknown) => setError(describeError(err, t)));
  }, [t]);

  const savePrefs = async (patch: Partial<Pick<Settings, 'language' | 'image_format' | 'notifications_enabled'>>) => {
    setError(null);
    setSaved(null);
    try {
      const next = unwrap(await api.PATCH('/api/v2/user/settings', { body: patch }));
      setSettings(next);
      if (patch.language) setLang(next.language);
      setSaved('prefs');
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  const saveProfile = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setSaved(null);
    try {
      unwrap(await api.PATCH('/api/v2/user/me', { body: { name: name.trim(), avatar_url: avatar.trim() || null } }));
      await reloadUser();
      setSaved('profile');
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  return (
    <>
      <h1>{t('settings.title')}</h1>
      {error && <Alert kind="error">{error}</Alert>}
      {settings && (
        <section className="card" aria-labelledby="prefs-h">
          <h2 id="prefs-h">{t('settings.preferences')}</h2>
          <label htmlFor="s-language">{t('settings.language')}</label>
          <select
            id="s-language"
            value={settings.language}
            onChange={(e) => void savePrefs({ language: e.target.value === 'ru' ? 'ru' : 'en' })}
          >
            <option value="en" lang="en">
              English
            </option>
            <option value="ru" lang="ru">
              Русский
            </option>
          </select>
          <label htmlFor="s-format">{t('settings.imageFormat')}</label>
          <select
            id="s-format"
            value={settings.image_format}
            onChange={(e) => void savePrefs({ image_format: e.target.value as Settings['image_format'] })}
          >
            <option value="webp">WebP</option>
            <option value="png">PNG</option>
            <option value="jpeg">JPEG</option>
          </select>
          <div className="row check">
            <input
              id="s-notifications"
              type="checkbox"
              checked={settings.notifications_enabled}
              onChange={(e) => void savePrefs({ notifications_enabled: e.target.checked })}
            />
            <label htmlFor="s-notifications">{t('settings.notifications')}</label>
          </div>
          {saved === 'prefs' && <p role="status">{t('settings.saved')}</p>}
        </section>
      )}
      <form className="card" aria-labelledby="profile-h" onSubmit={saveProfile}>
        <h2 id="profile-h">{t('settings.profile')}</h2>
        <label htmlFor="s-name">{t('settings.name')}</label>
        <input id="s-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="s-avatar">{t('settings.avatar')}</label>
        <input id="s-avatar" type="url" inputMode="url" placeholder="https://" value={avatar} onChange={(e) => setAvatar(e.target.value)} />
        <button type="submit">{t('settings.save')}</button>
        {saved === 'profile' && <p role="status">{t('settings.saved')}</p>}
      </form>
    </>
  );
}
