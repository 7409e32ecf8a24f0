import { createHash, randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase } from './support/harness';

// D10 and issue 6/6: no log line ever holds a token, cookie, password, code or verifier. One full
// run of every credential the service issues or accepts, then a grep of every line it logged.

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describeEachDatabase('no secret in any log line (D10)', (h) => {
  it('logs none of the passwords, session ids, tokens, codes, user codes or verifiers it handled', async () => {
    const secrets: string[] = [];
    const password = 'correct horse battery staple';
    const { token: minted } = await h.userWithToken('logs@example.com', password);
    secrets.push(password, minted);

    const person = new Browser(h);
    await person.login('logs@example.com', 'a wrong password, also secret');
    secrets.push('a wrong password, also secret');
    await person.signIn('logs@example.com', password, new SoftwareAuthenticator());
    secrets.push(person.session!);

    const client = (await (
      await h.request('/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:7777/cb'] }),
      })
    ).json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const params = {
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:7777/cb',
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: 'http://localhost:38081',
      state: 'state-that-is-not-secret',
    };
    await h.request(`/oauth/authorize?${new URLSearchParams(params)}`);
    const approval = (await (await person.post('/oauth/authorize/approve', { ...params, approve: true })).json()) as { redirect: string };
    const code = new URL(approval.redirect).searchParams.get('code')!;
    secrets.push(code, verifier);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: params.redirect_uri, client_id: client.client_id, code_verifier: verifier };
    const pair = (await (await h.request('/oauth/token', form(exchange))).json()) as { access_token: string; refresh_token: string };
    await h.request('/oauth/token', form(exchange)); // a failed redemption logs nothing secret either
    secrets.push(pair.access_token, pair.refresh_token);
    const rotated = (await (
      await h.request('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id }))
    ).json()) as { access_token: string; refresh_token: string };
    secrets.push(rotated.access_token, rotated.refresh_token);
    await h.call(rotated.access_token, 'GET', '/accounts');

    const device = (await (
      await h.request('/oauth/device_authorization', form({ client_id: 'ledger-desktop', resource: 'http://localhost:38081' }))
    ).json()) as { device_code: string; user_code: string };
    secrets.push(device.device_code, device.user_code);
    await person.request(`/oauth/device_info?user_code=${device.user_code}`);
    await person.post('/oauth/device/approve', { user_code: device.user_code, approve: true });
    const deviceTokens = (await (
      await h.request('/oauth/token', form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code, client_id: 'ledger-desktop' }))
    ).json()) as { access_token: string; refresh_token: string };
    secrets.push(deviceTokens.access_token, deviceTokens.refresh_token);
    await h.request('/oauth/revoke', form({ token: deviceTokens.refresh_token }));
    await person.post('/auth/password', { current_password: password, new_password: 'another long password' });
    secrets.push('another long password');
    await person.post('/auth/logout');

    expect(h.logs.filter((l) => l.event === 'request').length, 'requests were logged').toBeGreaterThan(15);
    const logged = h.logs.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(7);
      expect(logged.includes(secret), `a log line holds the secret ${secret.slice(0, 6)}…`).toBe(false);
    }
  });
});
