import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, type ClientView } from '../api';
import { ErrorNote, PageHeading, useSubmit } from '../components';
import { metadataDocumentHost } from './Consent';

/**
 * /device (D9): the person types the code shown by a device, sees the app's name (and, for a client
 * with a metadata document, the host that published it, D18), and decides.
 */
export function Device() {
  const { t } = useTranslation();
  const [code, setCode] = useState(new URLSearchParams(window.location.search).get('user_code') ?? '');
  const [found, setFound] = useState<ClientView | null>(null);
  // What was decided: worded when shown, so that it follows the language (D29).
  const [done, setDone] = useState<{ approved: boolean; name: string } | null>(null);
  const host = found ? metadataDocumentHost(found) : null;

  const look = useSubmit(async () => {
    setFound((await api<{ client: ClientView }>('GET', `/oauth/device_info?user_code=${encodeURIComponent(code)}`)).client);
  });
  const approve = useSubmit(async () => {
    await api('POST', '/oauth/device/approve', { user_code: code, approve: true });
    setDone({ approved: true, name: found?.name ?? '' });
  });
  const decline = useSubmit(async () => {
    await api('POST', '/oauth/device/approve', { user_code: code, approve: false });
    setDone({ approved: false, name: found?.name ?? '' });
  });

  return (
    <main className="narrow">
      <PageHeading>{t('device.title')}</PageHeading>
      {done ? (
        <p role="status">{done.approved ? t('device.approved', { name: done.name }) : t('device.declined')}</p>
      ) : !found ? (
        <form onSubmit={look.onSubmit}>
          <label>
            {t('device.code')}
            <input
              required
              autoCapitalize="characters"
              autoComplete="off"
              placeholder="ABCD-EFGH"
              value={code}
              onChange={(e) => setCode(e.target.value.toUpperCase())}
            />
          </label>
          <ErrorNote error={look.error} />
          <button type="submit" disabled={look.busy}>
            {t('device.continue')}
          </button>
        </form>
      ) : (
        <div className="stack">
          {found.dynamic && found.first_use && (
            <p className="warning" role="alert">
              {host ? <Trans i18nKey="device.firstUseFrom" values={{ host }} components={{ strong: <strong /> }} /> : t('device.firstUse')}
            </p>
          )}
          <p>
            {host ? (
              <Trans i18nKey="device.asksFrom" values={{ name: found.name, host }} components={{ strong: <strong /> }} />
            ) : (
              <Trans i18nKey="device.asks" values={{ name: found.name }} components={{ strong: <strong /> }} />
            )}
          </p>
          <ErrorNote error={approve.error ?? decline.error} />
          <div className="row">
            <button type="button" onClick={() => void approve.onSubmit()} disabled={approve.busy || decline.busy}>
              {t('device.allow')}
            </button>
            <button type="button" className="secondary" onClick={() => void decline.onSubmit()} disabled={approve.busy || decline.busy}>
              {t('device.deny')}
            </button>
          </div>
        </div>
      )}
    </main>
  );
}
