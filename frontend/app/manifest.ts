import type { MetadataRoute } from "next";

/** The web app manifest (`/manifest.webmanifest`): Parley installs on a phone's home screen or a desktop. */
export default function manifest(): MetadataRoute.Manifest {
  return {
    id: "/",
    name: "Parley",
    short_name: "Parley",
    description: "Chat with your task assistant and the agents working for you.",
    start_url: "/",
    scope: "/",
    display: "standalone",
    background_color: "#ffffff",
    theme_color: "#18181b",
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icons/maskable-192.png", sizes: "192x192", type: "image/png", purpose: "maskable" },
      { src: "/icons/maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
  };
}
