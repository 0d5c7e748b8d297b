"""People's accounts and every credential that names one: passwords, web sessions (cookies),
agent keys, `parley token` JWTs, invites, passkeys and OIDC sign-in. Services here know
nothing of HTTP; `parley.api` turns them into routes and cookies."""
