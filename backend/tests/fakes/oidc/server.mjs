// A real OpenID provider (npm `oidc-provider`) for tests: authorization code + PKCE, ID tokens
// signed with a fresh RS256 key. There is no login page: every sign-in is the identity last set
// with `POST /_identity` (JSON: sub, email, email_verified, preferred_username, name), or
// IDENTITY (JSON) from the environment, and consent is granted at once.
//
//   PORT=0 CLIENT_ID=parley CLIENT_SECRET=s REDIRECT_URIS=http://127.0.0.1:3000/api/auth/oidc/callback \
//     node server.mjs
// prints one line, {"issuer": "http://127.0.0.1:<port>"}, once it listens.
import { generateKeyPairSync } from "node:crypto";
import http from "node:http";
import Provider from "oidc-provider";

const host = process.env.HOST || "127.0.0.1";
let identity = JSON.parse(
  process.env.IDENTITY ||
    '{"sub": "oidc-user-1", "email": "sso@example.com", "email_verified": true, "preferred_username": "sso.user"}',
);
const accounts = new Map();

function remember(claims) {
  accounts.set(claims.sub, claims);
  return claims.sub;
}

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: "jwk" }), kid: "test-key", alg: "RS256", use: "sig" };

const server = http.createServer();
server.listen(Number(process.env.PORT || 0), host, () => {
  const issuer = `http://${host}:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: process.env.CLIENT_ID || "parley",
        client_secret: process.env.CLIENT_SECRET || "parley-secret",
        redirect_uris: (process.env.REDIRECT_URIS || "").split(",").filter(Boolean),
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["preferred_username", "name"] },
    features: { devInteractions: { enabled: false } },
    findAccount: async (_ctx, sub) => {
      const claims = accounts.get(sub);
      return claims && { accountId: sub, claims: async () => claims };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["test-cookie-key"] },
  });
  provider.proxy = false;

  // Every interaction (login, then consent) is finished at once for the current identity.
  async function interaction(req, res) {
    const details = await provider.interactionDetails(req, res);
    const accountId = details.session?.accountId || remember({ ...identity });
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId, clientId: details.params.client_id });
    grant.addOIDCScope(String(details.params.scope || "openid"));
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  const callback = provider.callback();
  server.on("request", (req, res) => {
    if (req.url.startsWith("/interaction/")) {
      interaction(req, res).catch((err) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    } else if (req.method === "POST" && req.url === "/_identity") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        identity = JSON.parse(body);
        res.statusCode = 204;
        res.end();
      });
    } else {
      callback(req, res);
    }
  });
  process.stdout.write(JSON.stringify({ issuer }) + "\n");
});

process.on("SIGTERM", () => server.close(() => process.exit(0)));
