import { attachmentsOf } from "@/lib/attachments";
import { toolCallsOf, type Message } from "@/lib/types";
import { MessageAttachments } from "./attachment-chips";
import { MessageActions } from "./message-actions";
import { MessageBubble } from "./message-bubble";

interface Props {
  message: Message;
  /** Only on the last failed reply. */
  onRetry?: () => void;
  /** The person's own chat message: send an edited text (in a fork). */
  onEdit?: (text: string) => void;
  /** The last reply of a chat: ask again (in a fork). */
  onRegenerate?: () => void;
  /** The message a search led to. */
  found?: boolean;
}

/** A stored message as its bubble, with its actions. */
export function StoredMessage({ message, onRetry, onEdit, onRegenerate, found }: Props) {
  const model = typeof message.meta?.model === "string" ? message.meta.model : null;
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
      model={model}
      found={found}
      attachments={<MessageAttachments items={attachmentsOf(message)} />}
      actions={<MessageActions text={message.content} onEdit={onEdit} onRegenerate={onRegenerate} />}
    />
  );
}
