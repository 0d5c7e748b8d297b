"""The OAuth 2.0 Device Authorization Grant (RFC 8628) of Parley's authorization server: how
`parley connect` signs a terminal in as its person, the way `gh auth login` does. The program
gets a device code (kept) and a short user code (shown); the person enters the user code in
the signed-in web UI and approves; the program's next poll gets a short-lived token for them.
"""
