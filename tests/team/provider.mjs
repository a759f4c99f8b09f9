// An OpenID provider for the team test: oidc-provider (OpenID Certified), its client_credentials
// grant with resource indicators (RFC 8707), so that an access token is a JWT whose audience is
// the resource the client names. Run as
//   node provider.mjs MODULE_URL PORT RESOURCE CLIENTS_JSON
// where MODULE_URL is the file URL of oidc-provider's lib/index.js, and CLIENTS_JSON a list of
// {"client_id", "client_secret", "scope"}: each client may ask for its scopes and no others.
// It prints "listening" once it serves, and serves until killed.
import { generateKeyPairSync } from 'node:crypto';

const [, , moduleUrl, port, resource, clientsJson] = process.argv;
const { default: Provider, errors } = await import(moduleUrl);
const SCOPES = 'tools:read tools:write tools:network tools:destructive role:human_agent role:admin';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = { ...privateKey.export({ format: 'jwk' }), kid: 'team-rs256', alg: 'RS256', use: 'sig' };

const provider = new Provider(`http://127.0.0.1:${port}`, {
  scopes: SCOPES.split(' '),
  clients: JSON.parse(clientsJson).map((client) => ({
    client_id: client.client_id,
    client_secret: client.client_secret,
    scope: client.scope,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
  })),
  jwks: { keys: [key] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (indicator !== resource) throw new errors.InvalidTarget();
        return {
          scope: SCOPES,
          audience: resource,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
});
provider.listen(Number(port), '127.0.0.1', () => console.log('listening'));
