/** Wire shapes of the account routes, taken from the generated `api-types.ts` by route. */
import type { paths } from "./api-types";
import type { JsonOf } from "./types";

export type AuthConfig = JsonOf<paths["/api/auth/config"]["get"]["responses"][200]>;
export type Me = JsonOf<paths["/api/auth/me"]["get"]["responses"][200]>;
/** An invite may be for one email, or one user name (an admin's choice). */
export type Invite = JsonOf<paths["/api/auth/invites/{token}"]["get"]["responses"][200]>;
export type WebSession = JsonOf<paths["/api/{user_id}/sessions"]["get"]["responses"][200]>[number];
export type AgentKey = JsonOf<paths["/api/{user_id}/agent-keys"]["get"]["responses"][200]>[number];
/** Only the answer to creating a key carries its secret, once. */
export type NewAgentKey = JsonOf<paths["/api/{user_id}/agent-keys"]["post"]["responses"][201]>;
export type Passkey = JsonOf<paths["/api/{user_id}/passkeys"]["get"]["responses"][200]>[number];
export type CreatedInvite = JsonOf<paths["/api/admin/invites"]["post"]["responses"][201]>;
/** An OAuth client the person allowed to act as one of their agents. */
export type ConnectedApp = JsonOf<paths["/api/{user_id}/connected-apps"]["get"]["responses"][200]>[number];
/** What the consent page asks about: which client, from where, as which agent. */
export type ConsentRequest = JsonOf<paths["/api/oauth/requests/{request}"]["get"]["responses"][200]>;
export type DeviceRequest = JsonOf<paths["/api/device/lookup"]["post"]["responses"][200]>;
export type DeviceDecision = JsonOf<paths["/api/device/decision"]["post"]["responses"][200]>;
/** A device that gets notifications. */
export type PushDevice = JsonOf<paths["/api/{user_id}/push-subscriptions"]["get"]["responses"][200]>[number];
export type NewPushDevice = JsonOf<paths["/api/{user_id}/push-subscriptions"]["post"]["responses"][201]>;
/** Which kinds of event notify the person, and which conversations are muted. */
export type NotificationPrefs = JsonOf<paths["/api/{user_id}/notification-preferences"]["get"]["responses"][200]>;
export type NotificationKind = "question" | "run_failed" | "message" | "email_reminders";
export type VapidKey = JsonOf<paths["/api/push/vapid-public-key"]["get"]["responses"][200]>;
/** The account's email and whether its person proved they receive mail there. */
export type EmailState = JsonOf<paths["/api/auth/email"]["put"]["responses"][200]>;
/** A standing answer to a kind of tool call, in Claude Code's rule syntax. */
export type ApprovalRule = JsonOf<paths["/api/{user_id}/approval-rules"]["get"]["responses"][200]>[number];
export type AuditPage = JsonOf<paths["/api/{user_id}/audit"]["get"]["responses"][200]>;
export type AuditEvent = AuditPage["events"][number];
export type ApprovalRuleIn = NonNullable<paths["/api/{user_id}/approval-rules"]["post"]["requestBody"]>["content"]["application/json"];
/** "Always allow this": the rule made and the answer stored. */
export type AlwaysAllowed = JsonOf<paths["/api/{user_id}/approval-rules/from-question/{question_id}"]["post"]["responses"][201]>;
