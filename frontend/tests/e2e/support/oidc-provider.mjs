// A real OpenID provider for the browser tests (npm `oidc-provider`, a certified implementation):
// authorization code flow with PKCE, one confidential client, and its development login form,
// where any login signs in as that account (email `<login>@example.test`, verified).
//
//   node oidc-provider.mjs --port N --client-id ID --client-secret SECRET --redirect-uri URI
//
// Prints "oidc-provider ready <issuer>" once it listens.
import { parseArgs } from "node:util";
import Provider from "oidc-provider";

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    "client-id": { type: "string" },
    "client-secret": { type: "string" },
    "redirect-uri": { type: "string" },
  },
});
for (const name of ["port", "client-id", "client-secret", "redirect-uri"]) {
  if (!values[name]) {
    console.error(`oidc-provider: --${name} is required`);
    process.exit(2);
  }
}

const issuer = `http://127.0.0.1:${values.port}`;
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: values["client-id"],
      client_secret: values["client-secret"],
      redirect_uris: [values["redirect-uri"]],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  ],
  pkce: { required: () => true },
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username"] },
  findAccount: async (_ctx, id) => ({
    accountId: id,
    claims: async () => ({
      sub: id,
      email: `${id}@example.test`,
      email_verified: true,
      name: id,
      preferred_username: id,
    }),
  }),
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ["parley-e2e-oidc-cookie-key"] },
});

const server = provider.listen(Number(values.port), "127.0.0.1", () => {
  console.log(`oidc-provider ready ${issuer}`);
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
