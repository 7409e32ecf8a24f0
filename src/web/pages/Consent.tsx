import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, type ClientView } from '../api';
import { ErrorNote, Loading, PageHeading, useSubmit } from '../components';

/**
 * D18: the host that publishes a client's metadata document, when its id is the document's https
 * URL; null for other clients. That host is the one thing about such a client we checked (the
 * document came from it over TLS); its name is whatever the document says.
 */
export function metadataDocumentHost(client: ClientView): string | null {
  if (!client.id.startsWith('https://')) return null;
  try {
    return new URL(client.id).host;
  } catch {
    return null;
  }
}

/**
 * /authorize (D9): GET /oauth/authorize sends the person here with the request's query. Shows
 * which app asks (and, for a client with a metadata document, the host that published it, D18),
 * warns when it registered itself and was never used, where it will return, and approves or
 * denies (the API re-validates everything).
 */
export function Consent() {
  const { t } = useTranslation();
  const params = Object.fromEntries(new URLSearchParams(window.location.search));
  const [client, setClient] = useState<ClientView | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api<ClientView>('GET', `/oauth/client_info?client_id=${encodeURIComponent(params.client_id ?? '')}`)
      .then(setClient)
      .catch((e: Error) => setError(e.message));
  }, [params.client_id]);

  const decide = async (approve: boolean) => {
    const { redirect } = await api<{ redirect: string }>('POST', '/oauth/authorize/approve', { ...params, approve });
    window.location.assign(redirect);
  };
  const approve = useSubmit(() => decide(true));
  const deny = useSubmit(() => decide(false));

  if (!client) return error ? <main className="narrow"><ErrorNote error={error} /></main> : <Loading />;
  const host = metadataDocumentHost(client);
  let returnTo = params.redirect_uri ?? '';
  try {
    returnTo = new URL(returnTo).origin;
  } catch {
    /* shown as given */
  }
  return (
    <main className="narrow">
      <PageHeading>{host ? t('consent.titleFrom', { name: client.name, host }) : t('consent.title', { name: client.name })}</PageHeading>
      {host && (
        <p>
          <Trans i18nKey="consent.describedBy" values={{ host, id: client.id }} components={{ strong: <strong />, code: <code /> }} />
        </p>
      )}
      {client.dynamic && client.first_use && (
        <p className="warning" role="alert">
          {host ? (
            <Trans i18nKey="consent.firstUseFrom" values={{ host }} components={{ strong: <strong /> }} />
          ) : (
            t('consent.firstUse')
          )}
        </p>
      )}
      <p>
        <Trans i18nKey="consent.asks" values={{ name: client.name }} components={{ strong: <strong /> }} />
      </p>
      <p>
        <Trans i18nKey="consent.returnTo" values={{ origin: returnTo }} components={{ code: <code /> }} />
      </p>
      <ErrorNote error={approve.error ?? deny.error} />
      <div className="row">
        <button type="button" onClick={() => void approve.onSubmit()} disabled={approve.busy || deny.busy}>
          {t('consent.allow')}
        </button>
        <button type="button" className="secondary" onClick={() => void deny.onSubmit()} disabled={approve.busy || deny.busy}>
          {t('consent.deny')}
        </button>
      </div>
    </main>
  );
}
