import { DeviceSignInScreen } from "@/components/device-sign-in-screen";

/** Where `parley connect` sends a person: enter the code the terminal shows, then approve it. */
export default async function DevicePage({ searchParams }: { searchParams: Promise<{ user_code?: string | string[] }> }) {
  const { user_code: code } = await searchParams;
  return <DeviceSignInScreen initialCode={typeof code === "string" ? code : ""} />;
}
