import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import { ServiceWorker } from "@/components/service-worker";
import "./globals.css";

export const metadata: Metadata = {
  title: "Parley",
  description: "Chat with your task assistant and the agents working for you.",
  applicationName: "Parley",
  appleWebApp: { capable: true, title: "Parley", statusBarStyle: "default" },
  // Declared here with the apple icon: a config `icons` replaces the file convention's link.
  icons: { icon: { url: "/icon.svg", type: "image/svg+xml" }, apple: "/icons/icon-192.png" },
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  // Keeps the pinned composer above the on-screen keyboard on phones.
  interactiveWidget: "resizes-content",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#18181b" },
  ],
};

export default async function RootLayout({ children }: Readonly<{ children: React.ReactNode }>) {
  // Rendered per request: each page's scripts carry that response's CSP nonce (proxy.ts).
  await connection();
  return (
    <html lang="en">
      <body>
        {children}
        <ServiceWorker />
      </body>
    </html>
  );
}
