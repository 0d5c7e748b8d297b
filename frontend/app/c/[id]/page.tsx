import { ParleyApp } from "@/components/parley-app";

/** A conversation's own address; the app reads the id from the location. */
export default function ConversationPage() {
  return <ParleyApp />;
}
