export type Role = "user" | "assistant" | "agent" | "system";

export interface ToolCallRecord {
  tool: string;
  parameters: Record<string, unknown> | null;
  result?: unknown;
  call_id?: string;
}

export interface Message {
  id: number;
  conversation_id: number;
  role: Role;
  author: string | null;
  kind: string;
  content: string;
  tool_calls: ToolCallRecord[] | null;
  error: boolean;
  reply_to: number | null;
  meta: Record<string, unknown> | null;
  created_at: string;
}

export type ConversationMode = "chat" | "work" | "inbox" | "run" | "delegation";

export interface Conversation {
  id: number;
  title: string | null;
  mode: ConversationMode;
  version: number;
  created_at: string;
  updated_at: string;
  preview: string | null;
  last_message_at: string | null;
}

export interface Task {
  id: number;
  title: string;
  description: string | null;
  completed: boolean;
  created_at: string;
  updated_at: string;
}

export interface Health {
  status: "ok" | "degraded";
  database: "ok" | "unavailable";
  model: string;
  offline_model: boolean;
  dev_login: boolean;
}

export interface ChatResult {
  conversation_id: number;
  response: string;
  tool_calls: ToolCallRecord[];
}

export interface ApiErrorBody {
  error: { code: string; message: string; conversation_id?: number; [key: string]: unknown };
}
