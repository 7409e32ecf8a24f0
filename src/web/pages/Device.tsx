import { useState } from 'react';
import { api, type ClientView } from '../api';
import { ErrorNote, PageHeading, useSubmit } from '../components';
import { metadataDocumentHost } from './Consent';

/**
 * /device (D9): the person types the code shown by a device, sees the app's name (and, for a client
 * with a metadata document, the host that published it, D18), and decides.
 */
export function Device() {
  const [code, setCode] = useState(new URLSearchParams(window.location.search).get('user_code') ?? '');
  const [found, setFound] = useState<ClientView | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const host = found ? metadataDocumentHost(found) : null;

  const look = useSubmit(async () => {
    setFound((await api<{ client: ClientView }>('GET', `/oauth/device_info?user_code=${encodeURIComponent(code)}`)).client);
  });
  const approve = useSubmit(async () => {
    await api('POST', '/oauth/device/approve', { user_code: code, approve: true });
    setDone(`Done: ${found?.name} is connected. You can return to it.`);
  });
  const decline = useSubmit(async () => {
    await api('POST', '/oauth/device/approve', { user_code: code, approve: false });
    setDone('Declined. The device was not connected.');
  });

  return (
    <main className="narrow">
      <PageHeading>Connect a device</PageHeading>
      {done ? (
        <p role="status">{done}</p>
      ) : !found ? (
        <form onSubmit={look.onSubmit}>
          <label>
            Code shown on the device
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
            Continue
          </button>
        </form>
      ) : (
        <div className="stack">
          {found.dynamic && found.first_use && (
            <p className="warning" role="alert">
              {host ? (
                <>
                  This app introduced itself through <strong>{host}</strong> and has never been used here. Only continue if
                  you trust {host}.
                </>
              ) : (
                'This app registered itself and has never been used here.'
              )}
            </p>
          )}
          <p>
            <strong>{found.name}</strong>
            {host && (
              <>
                {' '}
                from <strong>{host}</strong>
              </>
            )}{' '}
            asks for full access to the books.
          </p>
          <ErrorNote error={approve.error ?? decline.error} />
          <div className="row">
            <button type="button" onClick={() => void approve.onSubmit()} disabled={approve.busy || decline.busy}>
              Allow
            </button>
            <button type="button" className="secondary" onClick={() => void decline.onSubmit()} disabled={approve.busy || decline.busy}>
              Deny
            </button>
          </div>
        </div>
      )}
    </main>
  );
}
