import type { NextConfig } from "next";

/** On every response; the pages' Content-Security-Policy is set per request in proxy.ts (it has a nonce). */
const EVERYWHERE = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Full referrer within the site only. Not `no-referrer`: a form post would then carry
  // `Origin: null`, which the API refuses for a cookie-authenticated write.
  { key: "Referrer-Policy", value: "same-origin" },
];

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Next's gzip would buffer the proxied event streams (SSE); leave compression to a front proxy.
  compress: false,
  async headers() {
    return [
      { source: "/:path*", headers: EVERYWHERE },
      // The API's answers are data: opened as a document, they run nothing and are never framed.
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" }] },
    ];
  },
};

export default nextConfig;
