// A real OpenID provider for the single sign-on tests (decisions §17): the
// npm package oidc-provider, as its README's minimal provider, with its
// development login page (any password) and consent page, one confidential
// client (netcfg), and people whose `groups` claim netcfg maps to roles.
//
// node oidc_provider.mjs <oidc-provider's lib/index.js> <port> <redirect URI>
// prints "ready <issuer>" once it listens.

import { pathToFileURL } from "node:url";

const [modulePath, port, redirectUri] = process.argv.slice(2);
const { default: Provider } = await import(pathToFileURL(modulePath).href);

// Each person's groups: netcfg's auth.oidc.roles maps some of them.
const GROUPS = {
  grace: ["staff", "rtls-admins"],
  otto: ["rtls-operators"],
  linus: ["staff"],
  // netcfg has a user of this name with a password: not taken over.
  margaret: ["rtls-admins"],
};

const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "netcfg",
      client_secret: "a-test-secret-of-netcfg-at-the-provider",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  ],
  claims: {
    openid: ["sub"],
    profile: ["preferred_username", "name", "groups"],
  },
  async findAccount(_ctx, id) {
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          preferred_username: id,
          name: id.charAt(0).toUpperCase() + id.slice(1),
          groups: GROUPS[id] ?? [],
        };
      },
    };
  },
  pkce: { required: () => true },
  cookies: { keys: ["the test provider's cookie key"] },
});
provider.listen(Number(port), "127.0.0.1", () => {
  console.log(`ready ${issuer}`);
});
