import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * The MCP SDK client's OAuth state, kept in memory. The SDK does every request itself; the one
 * step it leaves to a browser (the person's approval) the test does with the URL it is handed in
 * `authorizationUrl`. With `clientMetadataUrl` the client names itself by that metadata document
 * (D18) instead of registering.
 */
export class SdkOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;

  constructor(readonly options: { redirectUrl: string; clientName: string; clientMetadataUrl?: string }) {}

  get clientMetadataUrl() {
    return this.options.clientMetadataUrl;
  }
  get redirectUrl() {
    return this.options.redirectUrl;
  }
  get clientMetadata() {
    return { client_name: this.options.clientName, redirect_uris: [this.options.redirectUrl] };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(saved: OAuthTokens) {
    this.saved = saved;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
