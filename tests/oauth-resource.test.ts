import { describe, expect, it } from 'vitest';
import { CLIENT_NAME_MAX_LENGTH, sanitiseClientName, UNNAMED_CLIENT } from '../src/oauth/clients';
import { isAcceptableRedirectUri, isRegisteredRedirectUri, redirectUriMatches } from '../src/oauth/redirect-uris';
import { resolvesToThisApi } from '../src/oauth/resource';

// Pure unit tests of the three OAuth helpers that decide "is this our API", "may this redirect
// URI be registered", "does it match a registered one" and "what is this client called". The
// HTTP tests (oauth-authorize, oauth-register, oauth-token) check that the routes use them.

const API = 'http://localhost:38081';

describe('D11: resource resolves to this API (resolvesToThisApi)', () => {
  it.each([
    ['API_ORIGIN itself', 'http://localhost:38081'],
    ['one trailing slash dropped', 'http://localhost:38081/'],
    ['scheme and host lower-cased', 'HTTP://LOCALHOST:38081'],
    ['mixed-case host with a trailing slash', 'Http://LocalHost:38081/'],
    ['a path on API_ORIGIN (the MCP endpoint)', 'http://localhost:38081/mcp'],
    ['a path with one trailing slash dropped', 'http://localhost:38081/mcp/'],
    ['a deeper path', 'http://localhost:38081/api/v1/things'],
    ['a path under an upper-cased origin', 'HTTP://localhost:38081/mcp'],
  ])('accepts %s: %s', (_why, value) => {
    expect(resolvesToThisApi(value, API)).toBe(true);
  });

  it.each([
    ['another port', 'http://localhost:38082'],
    ['another scheme', 'https://localhost:38081'],
    ['another host (127.0.0.1 is not localhost here)', 'http://127.0.0.1:38081'],
    ['a host that only starts like ours', 'http://localhost:38081.evil.example'],
    ['userinfo that puts the real host after @', 'http://localhost:38081@evil.example'],
    ['userinfo before our host', 'http://user@localhost:38081'],
    ['no port (the default port 80 is not 38081)', 'http://localhost'],
    ['a query on the origin', 'http://localhost:38081?x=1'],
    ['a query on a path', 'http://localhost:38081/mcp?x=1'],
    ['an empty query', 'http://localhost:38081/mcp?'],
    ['a fragment on the origin', 'http://localhost:38081#top'],
    ['a fragment on a path', 'http://localhost:38081/mcp#top'],
    ['a dot-dot segment', 'http://localhost:38081/mcp/../admin'],
    ['a lone dot segment', 'http://localhost:38081/.'],
    ['an empty segment', 'http://localhost:38081//mcp'],
    ['a space in the path', 'http://localhost:38081/m cp'],
    ['leading whitespace', ' http://localhost:38081'],
    ['trailing whitespace', 'http://localhost:38081 '],
    ['a tab inside the host', 'http://local\thost:38081'],
    ['a newline before the path', 'http://localhost:38081\n/mcp'],
    ['no scheme', 'localhost:38081'],
    ['a relative path', '/mcp'],
    ['the empty string', ''],
    ['another scheme altogether', 'ftp://localhost:38081'],
    // Not a plain absolute URL in its raw form: WHATWG URL would repair each into API_ORIGIN.
    ['a backslash after the authority (WHATWG reads it as /)', 'http://localhost:38081\\evil'],
    ['a backslash instead of the slashes', 'http:\\\\localhost:38081'],
    ['a backslash inside the host', 'http://local\\host:38081'],
    ['a percent-encoded host', 'http://%6cocalhost:38081'],
    ['a wholly percent-encoded host', 'http://%6C%6F%63%61%6C%68%6F%73%74:38081'],
    ['a percent-encoded port', 'http://localhost:%33%38%30%38%31'],
    ['a port with a leading zero', 'http://localhost:038081'],
    ['a port of zeros only', 'http://localhost:0'],
    ['an empty port', 'http://localhost:/'],
    ['a port out of range', 'http://localhost:138081'],
    ['a port that wraps around 65536', 'http://localhost:103617'],
    ['one slash after the scheme', 'http:/localhost:38081'],
    ['three slashes after the scheme', 'http:///localhost:38081'],
    ['no slashes after the scheme', 'http:localhost:38081'],
    ['a host with a trailing dot', 'http://localhost.:38081'],
    ['an empty userinfo', 'http://@localhost:38081'],
  ])('refuses %s: %j', (_why, value) => {
    expect(resolvesToThisApi(value, API)).toBe(false);
  });

  it('drops the default port before comparing (D11), and only the default port', () => {
    const origin = 'https://api.example';
    expect(resolvesToThisApi('https://api.example:443', origin)).toBe(true);
    expect(resolvesToThisApi('HTTPS://API.EXAMPLE:443/', origin)).toBe(true);
    expect(resolvesToThisApi('https://api.example:443/mcp', origin)).toBe(true);
    expect(resolvesToThisApi('https://api.example:8443', origin)).toBe(false);
    expect(resolvesToThisApi('http://api.example', origin)).toBe(false);
    expect(resolvesToThisApi('http://api.example:80', 'http://api.example')).toBe(true);
    expect(resolvesToThisApi('http://api.example:080', 'http://api.example')).toBe(false);
    expect(resolvesToThisApi('https://api.example:0443', origin)).toBe(false);
  });

  it('an IPv6 literal origin is compared as written, after lower-casing', () => {
    expect(resolvesToThisApi('http://[::1]:38081/mcp', 'http://[::1]:38081')).toBe(true);
    expect(resolvesToThisApi('http://[0:0::1]:38081', 'http://[::1]:38081')).toBe(false);
    expect(resolvesToThisApi('http://[::1%25lo]:38081', 'http://[::1]:38081')).toBe(false);
  });

  it('percent-encoding stays allowed in the path (RFC 3986 pchar), only not in the authority', () => {
    expect(resolvesToThisApi('http://localhost:38081/m%63p', API)).toBe(true);
  });
});

describe('redirect URIs accepted at registration (isAcceptableRedirectUri)', () => {
  it.each([
    ['http on 127.0.0.1 with a port', 'http://127.0.0.1:8765/callback'],
    ['http on 127.0.0.1 without a port', 'http://127.0.0.1/callback'],
    ['http on [::1] with a port', 'http://[::1]:8765/cb'],
    ['http on [::1] without a port', 'http://[::1]/cb'],
    ['http on 127.0.0.1 with a query', 'http://127.0.0.1:8765/cb?x=1'],
    ['https on a host name', 'https://app.example/cb'],
    ['https with a port and a query', 'https://app.example:8443/cb?x=1'],
    ['https on an IP address', 'https://192.0.2.10/cb'],
    ['loopback on port 1', 'http://127.0.0.1:1/cb'],
    ['loopback on port 65535', 'http://[::1]:65535/cb'],
    ['a URI of exactly 2000 characters', `https://app.example/${'a'.repeat(2000 - 'https://app.example/'.length)}`],
  ])('accepts %s: %s', (_why, uri) => {
    expect(isAcceptableRedirectUri(uri)).toBe(true);
  });

  it.each([
    ['http localhost (not loopback)', 'http://localhost:8765/cb'],
    ['https localhost', 'https://localhost/cb'],
    ['https localhost with a port', 'https://localhost:8443/cb'],
    ['http on a non-loopback host', 'http://app.example/cb'],
    ['http on another 127/8 address', 'http://127.0.0.2/cb'],
    ['http on a non-loopback IPv6 literal', 'http://[::2]/cb'],
    ['https with a user', 'https://user@app.example/cb'],
    ['https with a user and password', 'https://user:secret@app.example/cb'],
    ['a loopback look-alike whose host is after @', 'http://127.0.0.1:8765@evil.example/cb'],
    ['a loopback authority with userinfo', 'http://user@127.0.0.1:8765/cb'],
    ['a fragment on https', 'https://app.example/cb#frag'],
    ['an empty fragment on https', 'https://app.example/cb#'],
    ['a fragment on loopback', 'http://127.0.0.1:8765/cb#frag'],
    ['a fragment on [::1]', 'http://[::1]:8765/cb#x'],
    ['a custom scheme with a single slash', 'com.example:/cb'],
    ['a custom scheme with an authority', 'com.example.app://cb'],
    ['another standard scheme', 'ftp://app.example/cb'],
    ['a space inside', 'https://app.example/c b'],
    ['a leading space', ' https://app.example/cb'],
    ['a trailing newline', 'https://app.example/cb\n'],
    ['a tab inside a loopback URI', 'http://127.0.0.1:8765/c\tb'],
    ['an https URI with no host', 'https:///cb'],
    ['the empty string', ''],
    ['a relative reference', '/callback'],
    ['a loopback port above 65535', 'http://127.0.0.1:99999/cb'],
    ['a loopback port of 65536', 'http://[::1]:65536/cb'],
    ['loopback port 0', 'http://127.0.0.1:0/cb'],
    ['a loopback port with a leading zero', 'http://127.0.0.1:08765/cb'],
    ['an empty loopback port', 'http://127.0.0.1:/cb'],
    // Beyond the spec's list (README, "Choices where the spec is silent").
    ['a non-ASCII host', 'https://bücher.example/cb'],
    ['a non-ASCII path', 'https://app.example/café'],
    ['https on a subdomain of localhost', 'https://app.localhost/cb'],
    ['https on an upper-case LOCALHOST', 'https://LOCALHOST/cb'],
    ['a URI of 2001 characters', `https://app.example/${'a'.repeat(2001 - 'https://app.example/'.length)}`],
  ])('refuses %s: %j', (_why, uri) => {
    expect(isAcceptableRedirectUri(uri)).toBe(false);
  });
});

describe('redirect URI matching for registered clients (redirectUriMatches)', () => {
  const FIRST_PARTY = 'http://127.0.0.1/callback';

  it('matches the exact string', () => {
    expect(redirectUriMatches(FIRST_PARTY, FIRST_PARTY)).toBe(true);
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example/cb')).toBe(true);
  });

  it.each(['http://127.0.0.1:53123/callback', 'http://127.0.0.1:1/callback', 'http://127.0.0.1:65535/callback'])(
    'http on the literal 127.0.0.1 matches regardless of port: %s',
    (requested) => {
      expect(redirectUriMatches(FIRST_PARTY, requested)).toBe(true);
    },
  );

  it('http on the literal [::1] matches regardless of port, both ways', () => {
    expect(redirectUriMatches('http://[::1]/cb', 'http://[::1]:9999/cb')).toBe(true);
    expect(redirectUriMatches('http://[::1]:1234/cb', 'http://[::1]/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:1234/cb', 'http://127.0.0.1:4321/cb')).toBe(true);
  });

  it.each([
    ['localhost is not loopback', 'http://localhost:53123/callback'],
    ['localhost without a port', 'http://localhost/callback'],
    ['a different path', 'http://127.0.0.1:53123/other'],
    ['a longer path', 'http://127.0.0.1:53123/callbacks'],
    ['a path differing in case', 'http://127.0.0.1:53123/Callback'],
    ['an added query', 'http://127.0.0.1:53123/callback?x=1'],
    ['an added fragment', 'http://127.0.0.1:53123/callback#x'],
    ['the other loopback literal', 'http://[::1]:53123/callback'],
    ['https on loopback', 'https://127.0.0.1:53123/callback'],
    ['an authority with @ (its host is evil.example)', 'http://127.0.0.1:53123@evil.example/callback'],
    ['userinfo before the loopback host', 'http://user@127.0.0.1:53123/callback'],
    ['another 127/8 address', 'http://127.0.0.2:53123/callback'],
    ['a port above 65535', 'http://127.0.0.1:99999/callback'],
    ['port 0', 'http://127.0.0.1:0/callback'],
    ['a port with a leading zero', 'http://127.0.0.1:053123/callback'],
  ])('refuses %s: %s', (_why, requested) => {
    expect(redirectUriMatches(FIRST_PARTY, requested)).toBe(false);
  });

  it('is an exact match for anything that is not http on a loopback literal', () => {
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example:443/cb')).toBe(false);
    expect(redirectUriMatches('https://app.example/cb', 'https://APP.example/cb')).toBe(false);
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example/cb/')).toBe(false);
    expect(redirectUriMatches('http://localhost/cb', 'http://localhost:9/cb')).toBe(false);
  });

  it('an authority with @ falls to exact matching: the same string matches, another port does not', () => {
    const odd = 'http://127.0.0.1:80@evil.example/cb';
    expect(redirectUriMatches(odd, odd)).toBe(true);
    expect(redirectUriMatches(odd, 'http://127.0.0.1:81@evil.example/cb')).toBe(false);
    expect(redirectUriMatches(odd, 'http://127.0.0.1/cb')).toBe(false);
  });

  it('isRegisteredRedirectUri: any registered URI may match; none registered matches nothing', () => {
    const registered = ['https://app.example/cb', 'http://127.0.0.1/callback'];
    expect(isRegisteredRedirectUri(registered, 'https://app.example/cb')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'http://127.0.0.1:4000/callback')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'https://app.example/other')).toBe(false);
    expect(isRegisteredRedirectUri(registered, 'http://localhost:4000/callback')).toBe(false);
    expect(isRegisteredRedirectUri([], 'http://127.0.0.1/callback')).toBe(false);
  });
});

describe('OAuth client name (sanitiseClientName; spec: OAuth client, D13)', () => {
  it('keeps an ordinary name as it is', () => {
    expect(sanitiseClientName('My script')).toBe('My script');
    expect(sanitiseClientName('Café Ünïcødé 😀')).toBe('Café Ünïcødé 😀');
  });

  it.each([
    ['NUL', '\u0000'],
    ['tab', '\t'],
    ['line feed', '\n'],
    ['carriage return', '\r'],
    ['escape', '\u001b'],
    ['DEL', '\u007f'],
    ['C1 NEL', '\u0085'],
    ['C1 APC', '\u009f'],
  ])('removes the control character %s', (_why, ch) => {
    expect(sanitiseClientName(`Good${ch}Client`)).toBe('GoodClient');
  });

  const FORMAT_CHARACTERS = [
    '\u202A', '\u202B', '\u202C', '\u202D', '\u202E',
    '\u2066', '\u2067', '\u2068', '\u2069',
    '\u200E', '\u200F', '\u2028', '\u2029',
  ];

  it.each(FORMAT_CHARACTERS.map((ch) => [`U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, ch]))(
    'removes the format character %s',
    (_why, ch) => {
      expect(sanitiseClientName(`Good${ch}Client`)).toBe('GoodClient');
    },
  );

  it('removes a right-to-left override spoof entirely (the name reads as it is stored)', () => {
    expect(sanitiseClientName('Ledger \u202Egnp.exe\u202C CLI')).toBe('Ledger gnp.exe CLI');
  });

  it(`keeps the first ${CLIENT_NAME_MAX_LENGTH} characters, counted in code points`, () => {
    expect(sanitiseClientName('a'.repeat(61))).toBe('a'.repeat(60));
    expect(sanitiseClientName('a'.repeat(60))).toBe('a'.repeat(60));
    // Astral characters are two UTF-16 units but one character each.
    expect(sanitiseClientName('😀'.repeat(61))).toBe('😀'.repeat(60));
    expect([...sanitiseClientName('😀'.repeat(61))]).toHaveLength(60);
  });

  it('removes the listed characters before counting (D13 order: remove, keep 60, trim)', () => {
    expect(sanitiseClientName('\u202E'.repeat(10) + 'b'.repeat(60))).toBe('b'.repeat(60));
    expect(sanitiseClientName('\u0001'.repeat(59) + 'xyz')).toBe('xyz');
  });

  it('trims after cutting: a space at position 60 is dropped, and what lies beyond 60 is gone', () => {
    expect(sanitiseClientName('x'.repeat(59) + ' yyy')).toBe('x'.repeat(59));
    expect(sanitiseClientName('   padded name   ')).toBe('padded name');
    // The cut comes before the trim: 10 leading spaces count towards the 60.
    expect(sanitiseClientName(' '.repeat(10) + 'z'.repeat(60))).toBe('z'.repeat(50));
  });

  it.each([
    ['undefined (missing)', undefined],
    ['the empty string', ''],
    ['only spaces', '    '],
    ['only removed characters', '\u202E\u0000\u2066\n'],
    ['removed characters around spaces', '\u200E  \u200F'],
    ['a number', 42],
    ['null', null],
    ['a boolean', true],
    ['an array', ['My script']],
    ['an object', { name: 'My script' }],
  ])(`gives "${UNNAMED_CLIENT}" for %s`, (_why, raw) => {
    expect(sanitiseClientName(raw)).toBe('an unnamed client');
  });
});
