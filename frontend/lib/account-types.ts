/** Wire shapes of the account routes (sessions, agent keys, invites). */

export interface WebSession {
  id: number;
  device: string;
  created_at: string;
  last_seen_at: string | null;
  current: boolean;
}

export interface AgentKey {
  id: number;
  agent: string;
  prefix: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** Only the answer to creating a key carries its secret, once. */
export interface NewAgentKey extends AgentKey {
  secret: string;
}

export interface CreatedInvite {
  id: number;
  url: string;
  expires_at: string | null;
}
