import { ParleyApp } from "@/components/parley-app";

export default function HomePage() {
  return <ParleyApp />;
}
