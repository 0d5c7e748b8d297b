import { toolCallsOf, type Message } from "@/lib/types";
import { MessageBubble } from "./message-bubble";

/** A stored message as its bubble (Retry only on the last failed reply). */
export function StoredMessage({ message, onRetry }: { message: Message; onRetry?: () => void }) {
  return (
    <MessageBubble
      messageId={message.id}
      role={message.role}
      author={message.author}
      kind={message.kind}
      content={message.content}
      toolCalls={toolCallsOf(message)}
      error={message.error}
      stopped={message.meta?.stopped === true}
      createdAt={message.created_at}
      onRetry={onRetry}
    />
  );
}
