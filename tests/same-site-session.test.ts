import { eq } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { sessions } from '../src/db/schema';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, TEST_ENV } from './support/harness';
import { expectAuthenticationRequired, formInit, sha256Hex } from './support/http';

// Issue 26 item 5, D25: the session cookie counts only on a request whose Origin is WEB_ORIGIN,
// or that carries neither Origin nor Sec-Fetch-Site (a program). A page on another port or
// subdomain of the same site (Sec-Fetch-Site: same-site, which SameSite=Lax sends the cookie with)
// can neither log the person out nor spend their device attempts.

const PASSWORD = 'a same-site password';
const WEB = TEST_ENV.WEB_ORIGIN;

/** Headers a browser sends for a request started by a page on `origin` of the same site. */
const sameSiteFetch = (origin: string) => ({ origin, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' });
/** A top-level GET navigation (a link) from another page of the same site: no Origin header. */
const sameSiteNavigation = { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
/** The web app's own fetch to API_ORIGIN (another port of the same host, so same-site too). */
const webAppFetch = sameSiteFetch(WEB);

/** Pages of the same site that are not the web app: another port, another subdomain. */
const FOREIGN_PAGES = ['http://localhost:3000', 'http://localhost:38082', 'http://evil.localhost:38080', 'null'];

describeEachDatabase('same-site requests and the session cookie (issue 26 item 5; D25)', (h) => {
  const key = new SoftwareAuthenticator();
  let serial = 0;

  beforeAll(async () => {
    await h.userWithToken('samesite@example.com', PASSWORD);
  });

  async function signedIn(): Promise<Browser> {
    const b = new Browser(h);
    await b.signIn('samesite@example.com', PASSWORD, key);
    return b;
  }

  const sessionRow = async (id: string) =>
    (await h.db.select().from(sessions).where(eq(sessions.idHash, sha256Hex(id))))[0];
  const attempts = async (id: string) => (await sessionRow(id))!.deviceAttempts;

  async function startDevice(): Promise<string> {
    serial += 1;
    const res = await h.request('/oauth/device_authorization', formInit({ client_id: 'ledger-desktop', resource: TEST_ENV.API_ORIGIN }));
    expect(res.status, `device_authorization ${serial}`).toBe(200);
    return ((await res.json()) as { user_code: string }).user_code;
  }

  const lgSessionCookies = (res: Response) => res.headers.getSetCookie().filter((line) => line.startsWith('lg_session='));

  it('a page on another port or subdomain of the same site: POST /auth/logout answers 204 but ends nothing and clears no cookie; the cookie does not count on GET /auth/me', async () => {
    const b = await signedIn();
    const full = b.session!;
    for (const origin of FOREIGN_PAGES) {
      const logout = await b.request('/auth/logout', { method: 'POST', headers: sameSiteFetch(origin) });
      expect(logout.status, origin).toBe(204);
      expect(lgSessionCookies(logout), origin).toEqual([]);
      expect(b.session, origin).toBe(full);
      expect(await sessionRow(full), origin).toBeDefined();
      await expectAuthenticationRequired(await b.request('/auth/me', { headers: sameSiteFetch(origin) }), `GET /auth/me from ${origin}`);
    }
    // A form or link from such a page carries Sec-Fetch-Site without Origin (a GET navigation),
    // or an Origin (a POST form): neither counts.
    const formPost = await b.request('/auth/logout', { method: 'POST', headers: { ...sameSiteNavigation, origin: 'http://localhost:3000' } });
    expect(formPost.status).toBe(204);
    expect(lgSessionCookies(formPost)).toEqual([]);
    for (const site of ['same-site', 'same-origin', 'none', 'cross-site']) {
      await expectAuthenticationRequired(await b.request('/auth/me', { headers: { 'sec-fetch-site': site } }), `Sec-Fetch-Site: ${site} without Origin`);
      const logout = await b.request('/auth/logout', { method: 'POST', headers: { 'sec-fetch-site': site } });
      expect(logout.status, site).toBe(204);
      expect(lgSessionCookies(logout), site).toEqual([]);
    }
    expect(await sessionRow(full)).toBeDefined();
    // The session is whole: the web app and a program still use it.
    expect((await b.request('/auth/me', { headers: webAppFetch })).status).toBe(200);
    expect((await b.request('/auth/me')).status).toBe(200);
  });

  it('10 same-site navigations to GET /oauth/device_info spend none of the attempt budget; the device page (the web app) still looks a code up', async () => {
    const b = await signedIn();
    const id = b.session!;
    const userCode = await startDevice();
    for (let i = 0; i < 10; i++) {
      const res = await b.request('/oauth/device_info?user_code=ZZZZ-ZZZZ', { headers: sameSiteNavigation });
      expect(res.status, `navigation ${i}`).toBe(401);
      const fetched = await b.request('/oauth/device_info?user_code=ZZZZ-ZZZZ', { headers: sameSiteFetch('http://localhost:3000') });
      expect(fetched.status, `fetch ${i}`).toBe(401);
      const approve = await b.request('/oauth/device/approve', {
        method: 'POST', headers: sameSiteFetch('http://evil.localhost:38080'), json: { user_code: 'ZZZZ-ZZZZ', approve: true },
      });
      expect(approve.status, `approve ${i}`).toBe(401);
    }
    expect(await attempts(id)).toBe(0);
    const info = await b.request(`/oauth/device_info?user_code=${userCode}`, { headers: webAppFetch });
    expect(info.status).toBe(200);
    expect(await attempts(id)).toBe(0);
  });

  it('Origin: WEB_ORIGIN (the web app, same-site to the API) counts: device_info spends an attempt, logout ends the session and clears the cookie', async () => {
    const b = await signedIn();
    const id = b.session!;
    expect((await b.request('/auth/me', { headers: webAppFetch })).status).toBe(200);
    const wrong = await b.request('/oauth/device_info?user_code=ZZZZ-ZZZZ', { headers: webAppFetch });
    expect(wrong.status).toBe(400);
    expect(await attempts(id)).toBe(1);
    const logout = await b.request('/auth/logout', { method: 'POST', headers: webAppFetch });
    expect(logout.status).toBe(204);
    expect(lgSessionCookies(logout)).toHaveLength(1);
    expect(b.session).toBeUndefined();
    expect(await sessionRow(id)).toBeUndefined();
  });

  it('no Origin and no Sec-Fetch-Site (curl, a script) counts: device_info spends an attempt, logout ends the session', async () => {
    const b = await signedIn();
    const id = b.session!;
    expect((await b.request('/auth/me')).status).toBe(200);
    expect((await b.request('/oauth/device_info?user_code=ZZZZ-ZZZZ')).status).toBe(400);
    expect(await attempts(id)).toBe(1);
    const logout = await b.request('/auth/logout', { method: 'POST' });
    expect(logout.status).toBe(204);
    expect(lgSessionCookies(logout)).toHaveLength(1);
    expect(await sessionRow(id)).toBeUndefined();
  });
});
