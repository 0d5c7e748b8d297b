#!/usr/bin/env node
// The web UI's HTTP server (`npm start`, `npm run dev`): Next's own request handler, the one
// `next start` uses, behind a single rule. X-Forwarded-For is this socket's peer address,
// whatever the client sent.
//
// Why: the API believes the address the web UI's proxy (app/api/[...path]) forwards, for the
// sign-in limits and for dev sign-in's "this machine only". Next fills X-Forwarded-For from
// the socket only when the request has none (`??=`), and a route handler cannot see the
// socket, so under plain `next start` any browser could name itself 127.0.0.1. Here the
// header is overwritten before Next sees the request. A reverse proxy in front of the web UI
// is then the client as far as the API knows (it shares one address's sign-in limits): put
// that proxy's own address in PARLEY_WEB_TRUSTED_PROXIES and its X-Forwarded-For is read
// instead, right to left, up to the first hop that is not one of them.
//
// Options as `next start`: -H/--hostname (default: every interface), -p/--port (default
// $PORT, else 3000); --dev runs Next's development server instead of the build.
import { createServer } from "node:http";
import { BlockList, isIP } from "node:net";

const args = process.argv.slice(2);

function option(names) {
  for (let i = 0; i < args.length; i += 1) {
    for (const name of names) {
      if (args[i] === name) return args[i + 1];
      if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
    }
  }
  return undefined;
}

const dev = args.includes("--dev");
const hostname = option(["-H", "--hostname"]);
const port = Number(option(["-p", "--port"]) ?? process.env.PORT ?? 3000);
// As `next start` does: the build runs in production mode unless told otherwise.
process.env.NODE_ENV ??= dev ? "development" : "production";

/** One spelling per address: a dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d. */
function canonical(address) {
  const text = (address ?? "").trim().replace(/^\[(.*)\](?::\d+)?$/, "$1");
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(text);
  const plain = mapped ? mapped[1] : text;
  return isIP(plain) ? plain : null;
}

function trustedProxies(raw) {
  const list = new BlockList();
  for (const entry of (raw ?? "").split(",").map((part) => part.trim()).filter(Boolean)) {
    const [address, bits] = entry.split("/");
    const family = isIP(address);
    if (!family) throw new Error(`PARLEY_WEB_TRUSTED_PROXIES: ${entry} is not an address`);
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

const trusted = trustedProxies(process.env.PARLEY_WEB_TRUSTED_PROXIES);

function isTrusted(address) {
  return trusted.check(address, isIP(address) === 4 ? "ipv4" : "ipv6");
}

/** The client: the peer, or, from a trusted proxy, the right-most forwarded hop that is not one. */
function clientOf(peerAddress, forwardedFor) {
  const peer = canonical(peerAddress);
  if (peer === null) return "unknown";
  if (!isTrusted(peer)) return peer;
  let client = peer;
  const hops = (forwardedFor ?? "").split(",").map((hop) => hop.trim()).filter(Boolean);
  for (const hop of hops.reverse()) {
    const address = canonical(hop);
    if (address === null) return "unknown";
    client = address;
    if (!isTrusted(address)) break;
  }
  return client;
}

// Tells the proxy route that x-forwarded-for is this server's word (lib/proxy-config.ts).
process.env.PARLEY_WEB_PEER_FORWARDED = "1";
const { default: next } = await import("next");
const server = createServer();
const app = next({ dev, hostname: hostname ?? "localhost", port, httpServer: server });
const handle = app.getRequestHandler();
await app.prepare();

server.on("request", (req, res) => {
  const forwarded = req.headers["x-forwarded-for"];
  req.headers["x-forwarded-for"] = clientOf(
    req.socket.remoteAddress,
    Array.isArray(forwarded) ? forwarded.join(",") : forwarded,
  );
  handle(req, res).catch((error) => {
    console.error("[parley-web] request failed:", error);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
  });
});
server.listen(port, hostname, () => {
  const shown = hostname && hostname.includes(":") ? `[${hostname}]` : (hostname ?? "localhost");
  console.log(`> Parley web UI on http://${shown}:${port} (${dev ? "development" : "production"})`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close();
    process.exit(0);
  });
}
