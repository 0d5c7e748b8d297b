import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Next's gzip would buffer the proxied event streams (SSE); leave compression to a front proxy.
  compress: false,
};

export default nextConfig;
