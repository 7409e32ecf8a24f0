import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// D18 in the web app: a client whose metadata document is refused (here: a loopback address, with
// CIMD_ALLOW_PRIVATE_ADDRESSES off) is answered 401 invalid_client by GET /oauth/client_info. The
// consent page shows that refusal; it does not take the 401 for an ended session and send a
// signed-in person to sign in (who, signed in again, would come back to the same 401: a loop).

const missing = missingBrowserPrerequisite();

describe.skipIf(missing !== null && !STRICT_BROWSER)('the consent page and a refused client metadata document (D18)', () => {
  let s: WebSession;

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-consent-', email: 'consent@example.com', password: 'a treasurer password' });
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it('shows the refusal and keeps the person signed in, on the consent page', async () => {
    const query = new URLSearchParams({
      client_id: 'https://127.0.0.1:9/assistant.json',
      redirect_uri: 'http://127.0.0.1:8765/callback',
      response_type: 'code',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
      resource: s.api,
      state: 'xyz',
    });
    await s.page.goto(`${s.web}/authorize?${query}`);
    const alert = s.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/client metadata document/i);
    expect(new URL(s.page.url()).pathname).toBe('/authorize');
    expect(await s.page.getByLabel('Password').count()).toBe(0);
    const me = await s.page.evaluate(async (api) => (await fetch(`${api}/auth/me`, { credentials: 'include' })).status, s.api);
    expect(me).toBe(200);
  });
});
